//! Resolving a [`JsonPointer`] against a [`serde_json::Value`] (RFC 6901 §4), with the array-index rules.

use serde_json::Value;

use crate::{JsonPointer, ResolveError, ScalarKind, order};

impl JsonPointer {
    /// The value this pointer names in `document`, or `None`.
    ///
    /// Array tokens must be canonical indices (`0`, `17`; never `01`); `-` names the element after the last and
    /// so never yields a value.
    ///
    /// ```
    /// # use oa_pointer::JsonPointer;
    /// # use serde_json::json;
    /// let doc = json!({"foo": ["bar", "baz"]});
    /// assert_eq!(JsonPointer::parse("/foo/1")?.get(&doc), Some(&json!("baz")));
    /// assert_eq!(JsonPointer::parse("/foo/01")?.get(&doc), None);
    /// assert_eq!(JsonPointer::parse("/foo/-")?.get(&doc), None);
    /// # Ok::<(), oa_pointer::ParseError>(())
    /// ```
    pub fn get<'v>(&self, document: &'v Value) -> Option<&'v Value> {
        self.tokens()
            .try_fold(document, |value, token| step(value, token).ok())
    }

    /// The value this pointer names in `document`, mutably, or `None` (same rules as [`get`](Self::get)).
    ///
    /// ```
    /// # use oa_pointer::JsonPointer;
    /// # use serde_json::json;
    /// let mut doc = json!({"a": [1, 2]});
    /// if let Some(value) = JsonPointer::parse("/a/0")?.get_mut(&mut doc) {
    ///     *value = json!(10);
    /// }
    /// assert_eq!(doc, json!({"a": [10, 2]}));
    /// # Ok::<(), oa_pointer::ParseError>(())
    /// ```
    pub fn get_mut<'v>(&self, document: &'v mut Value) -> Option<&'v mut Value> {
        self.tokens()
            .try_fold(document, |value, token| step_mut(value, token).ok())
    }

    /// The value this pointer names in `document`, or why not.
    ///
    /// # Errors
    ///
    /// A [`ResolveError`] naming the longest prefix that exists, the token that failed below it, and why.
    ///
    /// ```
    /// # use oa_pointer::{JsonPointer, ResolveError};
    /// # use serde_json::json;
    /// let doc = json!({"a": [1, 2]});
    /// let error = JsonPointer::parse("/a/5/x")?.resolve(&doc).unwrap_err();
    /// assert!(matches!(error, ResolveError::IndexOutOfBounds { len: 2, .. }));
    /// assert_eq!(error.prefix().to_string(), "/a");
    /// assert_eq!(error.to_string(), "index 5 is out of bounds for the array of length 2 at \"/a\"");
    /// # Ok::<(), oa_pointer::ParseError>(())
    /// ```
    pub fn resolve<'v>(&self, document: &'v Value) -> Result<&'v Value, ResolveError> {
        let mut value = document;
        for (n_resolved, token) in self.tokens().enumerate() {
            value = step(value, token)
                .map_err(|failure| failure.into_error(self.prefix_of_len(n_resolved), token))?;
        }
        Ok(value)
    }

    /// The value this pointer names in `document`, mutably, or why not (same rules as [`resolve`](Self::resolve)).
    ///
    /// # Errors
    ///
    /// A [`ResolveError`] naming the longest prefix that exists, the token that failed below it, and why.
    pub fn resolve_mut<'v>(&self, document: &'v mut Value) -> Result<&'v mut Value, ResolveError> {
        let mut value = document;
        for (n_resolved, token) in self.tokens().enumerate() {
            value = step_mut(value, token)
                .map_err(|failure| failure.into_error(self.prefix_of_len(n_resolved), token))?;
        }
        Ok(value)
    }
}

/// Why one token did not resolve below an existing value; turned into a [`ResolveError`] on the error path.
enum StepFailure {
    MissingKey,
    IndexOutOfBounds { len: usize },
    InvalidIndex,
    PastTheEnd { len: usize },
    NotAContainer(ScalarKind),
}

impl StepFailure {
    #[cold]
    fn into_error(self, prefix: JsonPointer, token: &str) -> ResolveError {
        let token = token.to_owned();
        match self {
            Self::MissingKey => ResolveError::MissingKey { prefix, key: token },
            Self::IndexOutOfBounds { len } => ResolveError::IndexOutOfBounds { prefix, token, len },
            Self::InvalidIndex => ResolveError::InvalidIndex { prefix, token },
            Self::PastTheEnd { len } => ResolveError::PastTheEnd { prefix, len },
            Self::NotAContainer(kind) => ResolveError::NotAContainer { prefix, token, kind },
        }
    }
}

/// Looks one token up in `value`.
fn step<'v>(value: &'v Value, token: &str) -> Result<&'v Value, StepFailure> {
    match value {
        Value::Object(members) => members.get(token).ok_or(StepFailure::MissingKey),
        Value::Array(items) => {
            let index = array_index(token, items.len())?;
            items
                .get(index)
                .ok_or(StepFailure::IndexOutOfBounds { len: items.len() })
        }
        Value::Null => Err(StepFailure::NotAContainer(ScalarKind::Null)),
        Value::Bool(_) => Err(StepFailure::NotAContainer(ScalarKind::Boolean)),
        Value::Number(_) => Err(StepFailure::NotAContainer(ScalarKind::Number)),
        Value::String(_) => Err(StepFailure::NotAContainer(ScalarKind::String)),
    }
}

/// Looks one token up in `value`, mutably.
fn step_mut<'v>(value: &'v mut Value, token: &str) -> Result<&'v mut Value, StepFailure> {
    match value {
        Value::Object(members) => members.get_mut(token).ok_or(StepFailure::MissingKey),
        Value::Array(items) => {
            let len = items.len();
            let index = array_index(token, len)?;
            items.get_mut(index).ok_or(StepFailure::IndexOutOfBounds { len })
        }
        Value::Null => Err(StepFailure::NotAContainer(ScalarKind::Null)),
        Value::Bool(_) => Err(StepFailure::NotAContainer(ScalarKind::Boolean)),
        Value::Number(_) => Err(StepFailure::NotAContainer(ScalarKind::Number)),
        Value::String(_) => Err(StepFailure::NotAContainer(ScalarKind::String)),
    }
}

/// Reads an array token under RFC 6901 §4: `-` is past the end, otherwise digits with no leading zero.
fn array_index(token: &str, len: usize) -> Result<usize, StepFailure> {
    if token == "-" {
        return Err(StepFailure::PastTheEnd { len });
    }
    if let Some(index) = order::canonical_index(token) {
        return Ok(index);
    }
    let is_canonical_digits = token.bytes().all(|byte| byte.is_ascii_digit()) && !token.starts_with('0');
    if !token.is_empty() && is_canonical_digits {
        // Well formed but beyond usize: no array can be that long.
        return Err(StepFailure::IndexOutOfBounds { len });
    }
    Err(StepFailure::InvalidIndex)
}
