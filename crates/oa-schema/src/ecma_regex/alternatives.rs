//! Alternations of anchored patterns (`^([0-9]{3})$|^(default)$`, Swagger's response codes), matched without a
//! regex engine: each alternative anchors itself at the start, so the pattern matches exactly when one of them
//! does, and each is matched by [`Anchored`]. A capture group around an alternative's whole body is dropped (it does
//! not change what matches); any other group, and an alternative not in the anchored form, leave the pattern to the
//! next route.

use super::anchored::{Anchored, ends_with_odd_backslashes};

/// The alternatives of `pattern` in the anchored form, if it has two or more and every one qualifies.
pub(super) fn parse(pattern: &str) -> Option<Box<[Anchored]>> {
    let parts = top_level_alternatives(pattern)?;
    if parts.len() < 2 {
        return None;
    }
    parts
        .into_iter()
        .map(|part| Anchored::parse(&without_group(part)?))
        .collect()
}

/// Whether `text` matches one of `alternatives`.
pub(super) fn is_match(alternatives: &[Anchored], text: &str) -> bool {
    alternatives.iter().any(|anchored| anchored.is_match(text))
}

/// `pattern` split at its `|`s outside groups and bracketed classes (escapes skipped); `None` when a bracket or a
/// group is left open.
fn top_level_alternatives(pattern: &str) -> Option<Vec<&str>> {
    let bytes = pattern.as_bytes();
    let mut parts = Vec::new();
    let (mut start, mut depth, mut in_class, mut pos) = (0, 0_u32, false, 0);
    while let Some(&byte) = bytes.get(pos) {
        match byte {
            b'\\' => pos += 1,
            b'[' if !in_class => in_class = true,
            b']' if in_class => in_class = false,
            b'(' if !in_class => depth += 1,
            b')' if !in_class => depth = depth.checked_sub(1)?,
            b'|' if !in_class && depth == 0 => {
                parts.push(pattern.get(start..pos)?);
                start = pos + 1;
            }
            _ => {}
        }
        pos += 1;
    }
    if in_class || depth != 0 {
        return None;
    }
    parts.push(pattern.get(start..)?);
    Some(parts)
}

/// An alternative `^(body)$` or `^(body)` as `^body$` or `^body`; one without parentheses as it is; `None` for
/// any other group.
fn without_group(part: &str) -> Option<String> {
    let body = part.strip_prefix('^')?;
    if !body.contains(['(', ')']) {
        return Some(part.to_owned());
    }
    let (inner, end) = match body.strip_suffix('$') {
        Some(rest) if !ends_with_odd_backslashes(rest) => (rest, "$"),
        _ => (body, ""),
    };
    let inner = inner.strip_prefix('(')?.strip_suffix(')')?;
    if inner.contains(['(', ')']) || ends_with_odd_backslashes(inner) {
        return None;
    }
    Some(format!("^{inner}{end}"))
}

#[cfg(test)]
mod tests {
    use super::parse;
    use proptest::prelude::*;

    #[test]
    fn swagger_response_codes_qualify_and_the_rest_does_not() {
        for pattern in ["^([0-9]{3})$|^(default)$", "^a$|^b", "^(a)|^b+$|^\\d{2}$"] {
            assert!(parse(pattern).is_some(), "{pattern}");
        }
        for pattern in [
            "^a$",
            "^a$|b",
            "^(a|b)$",
            "^(?:a)$|^b$",
            "^(a)(b)$|^c$",
            "^(a)+$|^c$",
            "^[|]$",
            "^a\\|b$",
            "^(a\\)$|^b$",
        ] {
            assert!(parse(pattern).is_none(), "{pattern}");
        }
        assert!(parse("^a$|^").is_some_and(|alternatives| alternatives.len() == 2));
    }

    fn any_alternative() -> impl Strategy<Value = String> {
        let atom = prop::sample::select(vec![
            "a",
            "b",
            "\\d",
            "[0-9]",
            "[a-c]",
            "\\S",
            "[ \\r\\n\\t\\S]",
            "-",
            "\\|",
        ]);
        let quantifier = prop::sample::select(vec!["", "?", "*", "+", "{3}", "{1,2}"]);
        (
            prop::collection::vec((atom, quantifier), 0..4),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(atoms, grouped, to_end, anchored)| {
                let body: String = atoms.iter().map(|(atom, q)| format!("{atom}{q}")).collect();
                let body = if grouped { format!("({body})") } else { body };
                format!(
                    "{}{body}{}",
                    if anchored { "^" } else { "" },
                    if to_end { "$" } else { "" }
                )
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn agrees_with_the_regex_engine(
            alternatives in prop::collection::vec(any_alternative(), 1..4),
            text in "[ab0-9|\\- \n\t\u{a0}é]{0,12}",
        ) {
            let pattern = alternatives.join("|");
            let regex = crate::ecma_regex::reference_engine(&pattern).unwrap();
            if let Some(parsed) = parse(&pattern) {
                prop_assert_eq!(super::is_match(&parsed, &text), regex.is_match(text.as_bytes()), "{} on {:?}", pattern, text);
            }
        }
    }
}
