//! Differences between two JSON values, by path: how the strict schema check tells which
//! field a typed round trip dropped or changed.

use serde_json::Value;

/// Every place where `actual` differs from `expected`, as readable lines such as
/// `spec.template.spec.containers[0].livenessprobe: dropped (was {...})`. Object key order
/// does not matter; array order does. Empty when the values are equal.
pub fn differences(expected: &Value, actual: &Value) -> Vec<String> {
    let mut found = Vec::new();
    walk(expected, actual, &mut String::new(), &mut found);
    found
}

fn walk(expected: &Value, actual: &Value, path: &mut String, found: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(want), Value::Object(got)) => {
            for (key, value) in want {
                let len = path.len();
                push_key(path, key);
                match got.get(key) {
                    Some(other) => walk(value, other, path, found),
                    None => found.push(format!("{path}: dropped (was {})", short(value))),
                }
                path.truncate(len);
            }
            for (key, value) in got {
                if !want.contains_key(key) {
                    let len = path.len();
                    push_key(path, key);
                    found.push(format!("{path}: added ({})", short(value)));
                    path.truncate(len);
                }
            }
        }
        (Value::Array(want), Value::Array(got)) => {
            for (index, value) in want.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{index}]"));
                match got.get(index) {
                    Some(other) => walk(value, other, path, found),
                    None => found.push(format!("{path}: dropped (was {})", short(value))),
                }
                path.truncate(len);
            }
            if got.len() > want.len() {
                found.push(format!(
                    "{}: {} extra item(s) added",
                    shown(path),
                    got.len() - want.len()
                ));
            }
        }
        _ if expected == actual => {}
        _ => found.push(format!("{}: {} became {}", shown(path), short(expected), short(actual))),
    }
}

fn push_key(path: &mut String, key: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
}

fn shown(path: &str) -> &str {
    if path.is_empty() { "(the document)" } else { path }
}

/// A value cut to one short line for messages.
fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_values_differ_nowhere_whatever_the_key_order() {
        let a = json!({"a": 1, "b": {"c": [1, 2]}});
        let b = json!({"b": {"c": [1, 2]}, "a": 1});
        assert!(differences(&a, &b).is_empty());
    }

    #[test]
    fn dropped_added_and_changed_fields_are_named_by_path() {
        let expected = json!({"spec": {"replica": 3, "containers": [{"name": "x", "port": 1}]}});
        let actual = json!({"spec": {"containers": [{"name": "x", "port": "1"}], "extra": true}});
        assert_eq!(
            differences(&expected, &actual),
            vec![
                "spec.replica: dropped (was 3)".to_owned(),
                "spec.containers[0].port: 1 became \"1\"".to_owned(),
                "spec.extra: added (true)".to_owned(),
            ]
        );
    }

    #[test]
    fn array_items_missing_or_extra_are_reported() {
        assert_eq!(
            differences(&json!([1, 2]), &json!([1])),
            vec!["[1]: dropped (was 2)".to_owned()]
        );
        assert_eq!(
            differences(&json!({"a": [1]}), &json!({"a": [1, 2]})),
            vec!["a: 1 extra item(s) added".to_owned()]
        );
    }
}
