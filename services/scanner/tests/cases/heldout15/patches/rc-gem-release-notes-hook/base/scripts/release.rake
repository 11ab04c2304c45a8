# frozen_string_literal: true

require "erb"
require "json"
require "date"

namespace :release do
  desc "Bump version, render changelog, commit"
  task :prepare, [:bump] do |_t, args|
    bump = (args[:bump] || "patch").to_sym
    version_file = Dir["lib/*/version.rb"].first or abort("version.rb not found")
    src = File.read(version_file)
    cur = src[/VERSION\s*=\s*"([^"]+)"/, 1]
    major, minor, patch = cur.split(".").map(&:to_i)
    nextv = case bump
            when :major then "#{major + 1}.0.0"
            when :minor then "#{major}.#{minor + 1}.0"
            else "#{major}.#{minor}.#{patch + 1}"
            end
    File.write(version_file, src.sub(cur, nextv))

    last_tag = `git describe --tags --abbrev=0`.strip
    prs = JSON.parse(`gh pr list --state merged --search "merged:>#{`git log -1 --format=%cI #{last_tag}`.strip}" --json number,title,labels`)
    prs.each { |pr| pr["title"] = pr["title"].gsub("`", "'") }

    tpl = ERB.new(File.read(File.join(__dir__, "..", "templates", "changelog_section.md.erb")), trim_mode: "-")
    section = tpl.result_with_hash(version: nextv, date: Date.today.iso8601, prs: prs)
    File.write("CHANGELOG.md", section + "\n" + File.read("CHANGELOG.md"))
    FileUtils.mkdir_p("tmp")
    File.write("tmp/release_notes.md", section)

    sh "git add #{version_file} CHANGELOG.md"
    sh %(git commit -m "Release v#{nextv}")
  end
end
