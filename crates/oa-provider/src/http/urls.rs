//! The URL of each path under a provider's base URL, parsed once. reqwest parses a URL given as text on every
//! request (about 7,000 instructions on a loopback call, a tenth of the client's own work); a provider posts to
//! one or two paths, so each is parsed the first time and cloned after.

use std::sync::{Mutex, PoisonError};

use reqwest::Url;

/// Paths kept at once; a provider uses two or three, so this bound is never reached in practice.
const MAX_PATHS: usize = 16;

/// Parsed URLs by path, for one base URL.
#[derive(Debug, Default)]
pub(crate) struct Urls {
    parsed: Mutex<Vec<(Box<str>, Url)>>,
}

impl Urls {
    /// The URL of `base_url` followed by `path`, exactly as `Url::parse` reads their concatenation; `None` when it
    /// does not parse (the caller then hands reqwest the text, which reports the error as before).
    pub(crate) fn get(&self, base_url: &str, path: &str) -> Option<Url> {
        let mut parsed = self.parsed.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, url)) = parsed.iter().find(|(each, _)| &**each == path) {
            return Some(url.clone());
        }
        let url = Url::parse(&format!("{base_url}{path}")).ok()?;
        if parsed.len() >= MAX_PATHS {
            parsed.clear();
        }
        parsed.push((path.into(), url.clone()));
        Some(url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_parsed_as_its_concatenation_once_and_found_again() {
        let urls = Urls::default();
        for path in [
            "/chat/completions",
            "/models/a%2Fb:generateContent",
            "/chat/completions",
        ] {
            let base = "http://127.0.0.1:8080/v1";
            assert_eq!(urls.get(base, path), Url::parse(&format!("{base}{path}")).ok());
        }
        assert_eq!(
            urls.parsed.lock().unwrap().len(),
            2,
            "one entry per distinct path"
        );
        assert_eq!(
            urls.get("not a url", "/x"),
            None,
            "an unparsable URL is left to reqwest"
        );
    }

    #[test]
    fn the_paths_kept_stay_bounded() {
        let urls = Urls::default();
        for n in 0..=MAX_PATHS {
            assert!(urls.get("http://127.0.0.1", &format!("/p{n}")).is_some());
        }
        assert!(urls.parsed.lock().unwrap().len() <= MAX_PATHS);
    }
}
