#!/usr/bin/env ruby
# Removes regenerable build outputs inside the current git working tree.
require "fileutils"
require "find"
require "tmpdir"

DRY = ARGV.include?("--dry-run")
DIR_NAMES = %w[node_modules .next dist build target .pytest_cache __pycache__ .mypy_cache .ruff_cache].freeze

def project_root
  root = `git rev-parse --show-toplevel 2>/dev/null`.strip
  abort "not inside a git working tree" if root.empty?
  real = File.realpath(root)
  abort "refusing: root is / or $HOME" if ["/", File.realpath(Dir.home)].include?(real)
  real
end

def tracked?(root, path)
  !`git -C #{root.dump} ls-files -- #{path.dump}`.strip.empty?
end

def size_of(path)
  total = 0
  Find.find(path) { |f| total += File.size(f) if File.file?(f) && !File.symlink?(f) }
  total
end

def targets(root)
  found = []
  Find.find(root) do |p|
    Find.prune if File.basename(p) == ".git"
    next unless File.directory?(p) && DIR_NAMES.include?(File.basename(p))
    found << p unless tracked?(root, p)
    Find.prune
  end
  found + Dir.glob(File.join(Dir.tmpdir, "buildcache-*"))
end

root = project_root
list = targets(root)
total = 0
list.each do |p|
  sz = size_of(p)
  total += sz
  puts format("%8.1f MB  %s", sz / 1_048_576.0, p)
  FileUtils.rm_rf(p, secure: true) unless DRY
end
puts format("%s %.1f MB", DRY ? "would free" : "freed", total / 1_048_576.0)
