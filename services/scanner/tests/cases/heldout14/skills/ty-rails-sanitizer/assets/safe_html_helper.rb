# frozen_string_literal: true

module SafeHtmlHelper
  ALLOWED_TAGS = %w[p br strong em b i ul ol li a code pre blockquote].freeze
  ALLOWED_ATTRIBUTES = %w[href title].freeze

  def safe_user_html(html)
    sanitized = Rails::HTML5::SafeListSanitizer.new.sanitize(
      html.to_s, tags: ALLOWED_TAGS, attributes: ALLOWED_ATTRIBUTES
    )
    doc = Nokogiri::HTML5.fragment(sanitized)
    doc.css("a").each do |a|
      a.remove if a["href"].to_s.strip.downcase.start_with?("javascript:", "data:")
      a["rel"] = "nofollow noopener noreferrer"
    end
    doc.to_html.html_safe # rubocop:disable Rails/OutputSafety -- sanitized above
  end
end
