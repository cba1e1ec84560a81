//! `Draft`: the JSON Schema drafts oa-schema implements, and how a `$schema` URI names one.

use std::fmt;
use std::str::FromStr;

/// A JSON Schema draft. A schema is read by the draft its `$schema` names; one that declares none is read by
/// [`ValidatorOptions::default_draft`](crate::ValidatorOptions::default_draft) (2020-12 unless set). Each document
/// keeps its own draft, so a 2020-12 schema may `$ref` a draft-07 document.
///
/// ```
/// use oa_schema::Draft;
///
/// assert_eq!(Draft::from_uri("http://json-schema.org/draft-07/schema#"), Some(Draft::Draft7));
/// assert_eq!("2019-09".parse::<Draft>(), Ok(Draft::Draft201909));
/// assert_eq!(Draft::Draft4.to_string(), "4");
/// assert_eq!(Draft::default(), Draft::Draft202012);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum Draft {
    /// Draft 4 (`http://json-schema.org/draft-04/schema#`).
    Draft4,
    /// Draft 6 (`http://json-schema.org/draft-06/schema#`).
    Draft6,
    /// Draft 7 (`http://json-schema.org/draft-07/schema#`).
    Draft7,
    /// Draft 2019-09 (`https://json-schema.org/draft/2019-09/schema`).
    Draft201909,
    /// Draft 2020-12 (`https://json-schema.org/draft/2020-12/schema`), the default.
    #[default]
    Draft202012,
}

impl Draft {
    /// Every draft, oldest first.
    pub const ALL: [Self; 5] = [
        Self::Draft4,
        Self::Draft6,
        Self::Draft7,
        Self::Draft201909,
        Self::Draft202012,
    ];

    /// The draft whose meta-schema `uri` names: as the official test suite writes it, with or without the trailing
    /// `#`, over http or https. `None` for any other URI (a custom meta-schema, or a draft not implemented).
    pub fn from_uri(uri: &str) -> Option<Self> {
        let uri = uri.strip_suffix('#').unwrap_or(uri);
        let path = uri
            .strip_prefix("https://json-schema.org/")
            .or_else(|| uri.strip_prefix("http://json-schema.org/"))?;
        Self::ALL.into_iter().find(|draft| draft.path() == path)
    }

    /// The canonical URI of the draft's meta-schema (without a fragment), under which it is bundled.
    pub fn meta_schema_uri(self) -> &'static str {
        match self {
            Self::Draft4 => "http://json-schema.org/draft-04/schema",
            Self::Draft6 => "http://json-schema.org/draft-06/schema",
            Self::Draft7 => "http://json-schema.org/draft-07/schema",
            Self::Draft201909 => "https://json-schema.org/draft/2019-09/schema",
            Self::Draft202012 => "https://json-schema.org/draft/2020-12/schema",
        }
    }

    /// The meta-schema URI's path on json-schema.org.
    fn path(self) -> &'static str {
        match self {
            Self::Draft4 => "draft-04/schema",
            Self::Draft6 => "draft-06/schema",
            Self::Draft7 => "draft-07/schema",
            Self::Draft201909 => "draft/2019-09/schema",
            Self::Draft202012 => "draft/2020-12/schema",
        }
    }

    /// The draft's short name: `4`, `6`, `7`, `2019-09` or `2020-12` (what [`FromStr`] reads back).
    pub fn name(self) -> &'static str {
        match self {
            Self::Draft4 => "4",
            Self::Draft6 => "6",
            Self::Draft7 => "7",
            Self::Draft201909 => "2019-09",
            Self::Draft202012 => "2020-12",
        }
    }

    /// Before 2019-09, `$ref` beside other keywords makes them ignored (and its sibling `$id` does not change the
    /// base URI).
    pub(crate) fn ref_overrides_siblings(self) -> bool {
        self <= Self::Draft7
    }

    /// The keyword that names a resource: `id` in draft 4, `$id` after.
    pub(crate) fn id_keyword(self) -> &'static str {
        if self == Self::Draft4 { "id" } else { "$id" }
    }

    /// Before 2019-09 an `$id` (or `id`) may carry a plain-name fragment, which declares an anchor.
    pub(crate) fn ids_declare_anchors(self) -> bool {
        self <= Self::Draft7
    }
}

impl fmt::Display for Draft {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A draft name that is not one of `4`, `6`, `7`, `2019-09`, `2020-12`.
///
/// ```
/// use oa_schema::Draft;
///
/// let err = "draft7".parse::<Draft>().unwrap_err();
/// assert_eq!(err.to_string(), r#"unknown draft "draft7": expected 4, 6, 7, 2019-09 or 2020-12"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown draft {0:?}: expected 4, 6, 7, 2019-09 or 2020-12")]
pub struct UnknownDraft(String);

impl FromStr for Draft {
    type Err = UnknownDraft;

    /// Reads a short name (`7`, `2019-09`), as [`Draft::name`] writes it.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|draft| draft.name() == name)
            .ok_or_else(|| UnknownDraft(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::Draft;

    #[test]
    fn suite_uris_name_their_drafts() {
        for (uri, draft) in [
            ("http://json-schema.org/draft-04/schema#", Draft::Draft4),
            ("http://json-schema.org/draft-04/schema", Draft::Draft4),
            ("https://json-schema.org/draft-06/schema#", Draft::Draft6),
            ("http://json-schema.org/draft-07/schema", Draft::Draft7),
            ("https://json-schema.org/draft/2019-09/schema", Draft::Draft201909),
            (
                "https://json-schema.org/draft/2020-12/schema#",
                Draft::Draft202012,
            ),
            ("http://json-schema.org/draft/2020-12/schema", Draft::Draft202012),
        ] {
            assert_eq!(Draft::from_uri(uri), Some(draft), "{uri}");
        }
        for uri in [
            "http://json-schema.org/draft-03/schema#",
            "http://json-schema.org/draft-07/schema##",
            "http://json-schema.org/draft-07/schema#/definitions",
            "https://example.com/draft-07/schema",
            "https://json-schema.org/v1",
        ] {
            assert_eq!(Draft::from_uri(uri), None, "{uri}");
        }
    }

    #[test]
    fn names_round_trip_and_meta_schema_uris_name_their_draft() {
        for draft in Draft::ALL {
            assert_eq!(draft.name().parse::<Draft>(), Ok(draft));
            assert_eq!(Draft::from_uri(draft.meta_schema_uri()), Some(draft));
        }
        assert!("draft7".parse::<Draft>().is_err());
    }
}
