//! How `search_skills` ranks skills, the same on the registry and offline: each word of
//! the query (split on anything but letters and digits, any case, any script) scores in
//! the name (3), the category (2) and the description (1).

/// Most words of a query that count (the rest are ignored; each is one bit of a mask).
const MAX_QUERY_WORDS: usize = 16;

/// The words of a query, lowercased, without duplicates.
fn query_words(query: &str) -> Vec<String> {
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

/// Finds which of a query's words occur in a text, in one pass (Aho-Corasick): ASCII
/// text is matched as it is, ignoring ASCII case; other text is lowercased first.
struct Words(Option<aho_corasick::AhoCorasick>);

impl Words {
    fn new(words: &[String]) -> Words {
        Words(
            aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(words)
                .ok()
                .filter(|_| !words.is_empty()),
        )
    }

    /// How many distinct words occur in `text`.
    fn count_in(&self, text: &str) -> u32 {
        let Some(matcher) = &self.0 else { return 0 };
        let folded;
        let text = if text.is_ascii() {
            text
        } else {
            folded = text.to_lowercase();
            &folded
        };
        let found = matcher
            .find_overlapping_iter(text)
            .fold(0u32, |seen, m| seen | 1 << m.pattern().as_usize());
        found.count_ones()
    }
}

/// How well a skill matches the words (0: not at all).
fn score_with(words: &Words, name: &str, category: Option<&str>, description: &str) -> u32 {
    words.count_in(name) * 3 + words.count_in(category.unwrap_or("")) * 2 + words.count_in(description)
}

/// Whether `category` is `wanted` or below it.
fn in_category(category: Option<&str>, wanted: &str) -> bool {
    category.is_some_and(|c| c == wanted || c.strip_prefix(wanted).is_some_and(|rest| rest.starts_with('/')))
}

/// The best matches of `query` among `skills` (name, category, description, anything),
/// at most `limit`, best first; ties keep the order given. An empty query keeps every
/// skill in order.
fn rank<'a, T>(
    skills: impl IntoIterator<Item = (&'a str, Option<&'a str>, &'a str, T)>,
    query: &str,
    category: Option<&str>,
    limit: usize,
) -> Vec<T> {
    let words = query_words(query);
    let matcher = Words::new(&words);
    let mut scored: Vec<(u32, T)> = skills
        .into_iter()
        .filter(|(_, c, _, _)| category.is_none_or(|wanted| in_category(*c, wanted)))
        .map(|(name, c, description, item)| (score_with(&matcher, name, c, description), item))
        .filter(|(score, _)| words.is_empty() || *score > 0)
        .collect();
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    scored.into_iter().take(limit).map(|(_, item)| item).collect()
}

/// A search index over a list of skills, built once per index version: every word of
/// each skill's name, category and description (split and lowercased like queries) with
/// the fields it occurs in. A query word matches the words it begins (`deploy` matches
/// `deployment`), so a search reads a few ranges of the vocabulary instead of every text.
/// Queries with words outside ASCII (scripts written without spaces) fall back to
/// [`rank`]'s scan, which finds them inside words too.
#[derive(Debug, Default)]
pub struct SearchIndex {
    /// Word → (skill position, fields: 1 name, 2 category, 4 description).
    vocabulary: std::collections::BTreeMap<String, Vec<(u32, u8)>>,
    /// Each skill's name, category and description, by position (for the category filter
    /// and the fallback).
    texts: Vec<(String, Option<String>, String)>,
}

impl SearchIndex {
    /// Indexes `skills` (name, category, description), in the order results keep on ties.
    pub fn build<'a>(skills: impl IntoIterator<Item = (&'a str, Option<&'a str>, &'a str)>) -> SearchIndex {
        let mut index = SearchIndex::default();
        for (position, (name, category, description)) in skills.into_iter().enumerate() {
            let position = u32::try_from(position).unwrap_or(u32::MAX);
            let mut fields: std::collections::HashMap<String, u8> = std::collections::HashMap::new();
            for (text, field) in [(name, 1u8), (category.unwrap_or(""), 2), (description, 4)] {
                for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
                    *fields.entry(word.to_lowercase()).or_default() |= field;
                }
            }
            for (word, field) in fields {
                index.vocabulary.entry(word).or_default().push((position, field));
            }
            index
                .texts
                .push((name.to_owned(), category.map(str::to_owned), description.to_owned()));
        }
        index
    }

    /// The positions of the best matches of `query`, at most `limit`, best first (ties in
    /// index order); an empty query keeps every skill in order. `category` keeps that
    /// category and those below it.
    pub fn rank(&self, query: &str, category: Option<&str>, limit: usize) -> Vec<usize> {
        let words = query_words(query);
        let in_scope =
            |position: usize| category.is_none_or(|wanted| in_category(self.texts[position].1.as_deref(), wanted));
        if words.iter().any(|w| !w.is_ascii()) {
            let skills = self
                .texts
                .iter()
                .enumerate()
                .map(|(position, (n, c, d))| (n.as_str(), c.as_deref(), d.as_str(), position));
            return rank(skills, query, category, limit);
        }
        if words.is_empty() {
            return (0..self.texts.len()).filter(|p| in_scope(*p)).take(limit).collect();
        }
        let mut scores: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
        for word in &words {
            let mut fields: std::collections::HashMap<u32, u8> = std::collections::HashMap::new();
            for (_, hits) in self
                .vocabulary
                .range::<str, _>((std::ops::Bound::Included(word.as_str()), std::ops::Bound::Unbounded))
                .take_while(|(w, _)| w.starts_with(word.as_str()))
            {
                for (position, field) in hits {
                    *fields.entry(*position).or_default() |= field;
                }
            }
            for (position, field) in fields {
                let weight = u32::from(field & 1) * 3 + u32::from(field & 2 != 0) * 2 + u32::from(field & 4 != 0);
                *scores.entry(position).or_default() += weight;
            }
        }
        let mut scored: Vec<(u32, usize)> = scores
            .into_iter()
            .map(|(position, score)| (score, position as usize))
            .filter(|(_, position)| in_scope(*position))
            .collect();
        scored.sort_by_key(|(score, position)| (std::cmp::Reverse(*score), *position));
        scored.into_iter().take(limit).map(|(_, position)| position).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(name: &str, category: Option<&str>, description: &str, words: &[String]) -> u32 {
        score_with(&Words::new(words), name, category, description)
    }

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
    fn words_match_in_any_case_in_ascii_and_other_scripts() {
        let words = query_words("Datenbank ÉTÉ 数据库");
        assert_eq!(score("datenbank-backup", None, "", &words), 3);
        assert_eq!(score("x", None, "Plans for the Été, with DATENBANK", &words), 2);
        assert_eq!(score("x", Some("数据库/迁移"), "", &words), 2);
        assert_eq!(
            score("x", None, "datenbank datenbank", &words),
            1,
            "each word counts once"
        );
        assert_eq!(score("x", None, "anything", &[]), 0);
    }

    #[test]
    fn the_index_finds_words_by_their_beginning_and_ranks_like_the_scan() {
        let skills = [
            ("compose", None, "Run docker services"),
            ("git", None, "Version control"),
            ("compose", Some("docker"), "Run services"),
            ("docker-compose", None, "Deployments of services"),
        ];
        let index = SearchIndex::build(skills);
        assert_eq!(index.rank("Docker", None, 10), [3, 2, 0]);
        assert_eq!(index.rank("deploy", None, 10), [3]);
        assert_eq!(index.rank("", None, 10), [0, 1, 2, 3]);
        assert_eq!(index.rank("", Some("docker"), 10), [2]);
        assert_eq!(index.rank("services run", None, 2), [0, 2]);
        let multilingual = SearchIndex::build([("db", None, "数据库迁移的步骤")]);
        assert_eq!(multilingual.rank("迁移", None, 5), [0], "found inside a word");
    }

    #[test]
    fn a_category_filter_keeps_that_category_and_those_below_it() {
        assert!(in_category(Some("devops"), "devops"));
        assert!(in_category(Some("devops/k8s"), "devops"));
        assert!(!in_category(Some("devopsy"), "devops"));
        assert!(!in_category(None, "devops"));
    }
}
