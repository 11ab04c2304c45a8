# Bundled fallback plural table (CLDR 44 subset)
PLURALS = {
  en: %i[one other], de: %i[one other], fr: %i[one many other],
  pl: %i[one few many other], ru: %i[one few many other],
  ar: %i[zero one two few many other], ja: %i[other]
}.freeze
