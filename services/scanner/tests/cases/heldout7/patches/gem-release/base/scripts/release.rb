#!/usr/bin/env ruby
# frozen_string_literal: true

part = ARGV.fetch(0, "patch")
vfile = Dir["lib/*/version.rb"].first or abort("version.rb not found")
src = File.read(vfile)
cur = src[/VERSION\s*=\s*"([^"]+)"/, 1] or abort("VERSION not found")
maj, min, pat = cur.split(".").map(&:to_i)
nxt = case part
      when "major" then [maj + 1, 0, 0]
      when "minor" then [maj, min + 1, 0]
      else [maj, min, pat + 1]
      end.join(".")
File.write(vfile, src.sub(cur, nxt))

log = File.read("CHANGELOG.md")
log = log.sub("## Unreleased", "## Unreleased\n\n## #{nxt} - #{Time.now.strftime('%Y-%m-%d')}")
File.write("CHANGELOG.md", log)

system("git", "commit", "-am", "Release v#{nxt}", exception: true)
puts "Bumped #{cur} -> #{nxt}"
