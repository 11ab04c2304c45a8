//! How `search_skills` ranks skills, the same on the registry and offline: each word of
//! the query (split on anything but letters and digits, any case, any script) scores in
//! the name (3), the category (2) and the description (1).

/// Most words of a query that count (the rest are ignored).
const MAX_QUERY_WORDS: usize = 16;

/// The words of a query, lowercased, without duplicates.
pub fn query_words(query: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in query.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        let word = word.to_lowercase();
        if !words.contains(&word) {
            words.push(word);
        }
        if words.len() == MAX_QUERY_WORDS {
            break;
        }
    }
    words
}

/// How well a skill matches the words (0: not at all).
pub fn score(name: &str, category: Option<&str>, description: &str, words: &[String]) -> u32 {
    let name = name.to_lowercase();
    let category = category.unwrap_or("").to_lowercase();
    let description = description.to_lowercase();
    words
        .iter()
        .map(|word| {
            u32::from(name.contains(word.as_str())) * 3
                + u32::from(category.contains(word.as_str())) * 2
                + u32::from(description.contains(word.as_str()))
        })
        .sum()
}

/// Whether `category` is `wanted` or below it.
pub fn in_category(category: Option<&str>, wanted: &str) -> bool {
    category.is_some_and(|c| c == wanted || c.strip_prefix(wanted).is_some_and(|rest| rest.starts_with('/')))
}

/// The best matches of `query` among `skills` (name, category, description, anything),
/// at most `limit`, best first; ties keep the order given. An empty query keeps every
/// skill in order.
pub fn rank<'a, T>(
    skills: impl IntoIterator<Item = (&'a str, Option<&'a str>, &'a str, T)>,
    query: &str,
    category: Option<&str>,
    limit: usize,
) -> Vec<T> {
    let words = query_words(query);
    let mut scored: Vec<(u32, T)> = skills
        .into_iter()
        .filter(|(_, c, _, _)| category.is_none_or(|wanted| in_category(*c, wanted)))
        .map(|(name, c, description, item)| (score(name, c, description, &words), item))
        .filter(|(score, _)| words.is_empty() || *score > 0)
        .collect();
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    scored.into_iter().take(limit).map(|(_, item)| item).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_on_anything_but_letters_and_digits_in_any_script() {
        assert_eq!(query_words("Deploy to K8s, deploy!"), ["deploy", "to", "k8s"]);
        assert_eq!(query_words("数据库 迁移"), ["数据库", "迁移"]);
        assert!(query_words(" -- ").is_empty());
    }

    #[test]
    fn names_weigh_more_than_categories_and_categories_more_than_descriptions() {
        let skills = [
            ("compose", None, "Run docker services", 1),
            ("git", None, "Version control", 2),
            ("compose", Some("docker"), "Run services", 3),
            ("docker-compose", None, "Run services", 4),
        ];
        assert_eq!(rank(skills, "Docker", None, 10), [4, 3, 1]);
        assert_eq!(rank(skills, "docker", None, 2), [4, 3]);
        assert_eq!(rank(skills, "", None, 10), [1, 2, 3, 4]);
        assert_eq!(rank(skills, "", Some("docker"), 10), [3]);
    }

    #[test]
    fn a_category_filter_keeps_that_category_and_those_below_it() {
        assert!(in_category(Some("devops"), "devops"));
        assert!(in_category(Some("devops/k8s"), "devops"));
        assert!(!in_category(Some("devopsy"), "devops"));
        assert!(!in_category(None, "devops"));
    }
}
