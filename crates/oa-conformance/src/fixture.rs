//! Loading one fixture file into its cases (conformance-adapter §4, §8.2, §9).

use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::{FixtureError, FixtureErrorKind};
use crate::node::Node;
use crate::vocabulary::Vocabulary;

/// The conformance-adapter version this adapter targets: the spec version its vocabulary was
/// surveyed from (v0.118.2, plus proposal 0126). Fixtures declaring a later `conformance_version`
/// raise `fixture_version_unsupported` (§4.4).
pub const ADAPTER_VERSION: (u64, u64, u64) = (0, 118, 2);

/// The wire mappings the llm-provider harness can select with `mapping:` (033 and 060 headers).
const KNOWN_MAPPINGS: &[&str] = &["openai", "anthropic", "gemini", "streaming_unsupported_stub"];

/// A fixture's identity: `<capability>/<file stem>`, the capability being the directory above
/// `conformance/`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FixtureId {
    capability: String,
    stem: String,
}

impl FixtureId {
    /// Builds an id from its parts.
    pub fn new(capability: impl Into<String>, stem: impl Into<String>) -> Self {
        FixtureId {
            capability: capability.into(),
            stem: stem.into(),
        }
    }

    /// The capability directory name (`llm-provider`, `observability`, …).
    pub fn capability(&self) -> &str {
        &self.capability
    }

    /// The file stem (`001-basic-completion`).
    pub fn stem(&self) -> &str {
        &self.stem
    }

    /// The three-digit number the stem starts with, if it has one.
    pub fn number(&self) -> Option<&str> {
        self.stem
            .get(..3)
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
    }
}

impl fmt::Display for FixtureId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.capability, self.stem)
    }
}

/// One scenario of a fixture: its name (`None` for a single-case fixture) and its directives, the
/// fixture's shared top-level directives merged under the case's own.
#[derive(Debug, Clone)]
pub struct Case {
    /// The case's `name:`, or `None` for the single-case form.
    pub name: Option<String>,
    /// The case's directives in document order.
    pub body: Node,
}

/// A parsed, vocabulary-checked fixture file.
#[derive(Debug, Clone)]
pub struct Fixture {
    /// `<capability>/<stem>`.
    pub id: FixtureId,
    /// The YAML file it came from.
    pub path: PathBuf,
    /// Its cases, in document order.
    pub cases: Vec<Case>,
}

impl Fixture {
    /// Reads and parses the fixture at `path`, whose capability is `capability`.
    ///
    /// # Errors
    ///
    /// A §9 error: `fixture_schema_invalid` (unreadable file, bad YAML, malformed directive),
    /// `fixture_directive_unknown`, `fixture_version_unsupported`, or `harness_primitive_missing`
    /// (a capability or wire mapping this adapter has no harness for).
    pub fn load(path: &Path, capability: &str) -> Result<Fixture, FixtureError> {
        let text = std::fs::read_to_string(path).map_err(|error| {
            FixtureError::new(
                FixtureErrorKind::SchemaInvalid,
                "",
                format!("cannot read {}: {error}", path.display()),
            )
        })?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Fixture::parse(&text, FixtureId::new(capability, stem), path.to_path_buf())
    }

    /// Parses fixture text already read.
    ///
    /// # Errors
    ///
    /// As [`Fixture::load`].
    pub fn parse(text: &str, id: FixtureId, path: PathBuf) -> Result<Fixture, FixtureError> {
        let root = Node::from_yaml_str(text)?;
        let Some(entries) = root.as_map() else {
            return Err(FixtureError::new(
                FixtureErrorKind::SchemaInvalid,
                "",
                "a fixture must be a mapping",
            ));
        };
        if let Some(version) = root.get("conformance_version") {
            check_version(version)?;
        }
        let vocabulary = Vocabulary::for_capability(id.capability()).ok_or_else(|| {
            FixtureError::new(
                FixtureErrorKind::HarnessPrimitiveMissing,
                "",
                format!("no harness for capability `{}`", id.capability()),
            )
        })?;
        let shared: Vec<(String, Node)> = entries
            .iter()
            .filter(|(key, _)| key != "cases" && key != "conformance_version")
            .cloned()
            .collect();
        // 0120: a key is checked where it is written, so an unknown one is named at its own location (the
        // document root's shared keys at `/<key>`, a case's own at `/cases/N/<key>`).
        vocabulary.check_case(&Node::Map(shared.clone()), "")?;
        let cases = match root.get("cases") {
            None => vec![Case {
                name: None,
                body: Node::Map(shared),
            }],
            Some(Node::Seq(items)) => {
                let mut cases = Vec::with_capacity(items.len());
                for (idx, item) in items.iter().enumerate() {
                    let location = format!("/cases/{idx}");
                    let Some(own) = item.as_map() else {
                        return Err(FixtureError::new(
                            FixtureErrorKind::SchemaInvalid,
                            &location,
                            "a case must be a mapping",
                        ));
                    };
                    let Some(name) = item.get("name").and_then(Node::as_str) else {
                        return Err(FixtureError::new(
                            FixtureErrorKind::SchemaInvalid,
                            &location,
                            "a case needs a string `name`",
                        ));
                    };
                    vocabulary.check_case(item, &location)?;
                    let mut body = shared.clone();
                    for (key, value) in own {
                        match body.iter_mut().find(|(k, _)| k == key) {
                            Some(slot) => slot.1 = value.clone(),
                            None => body.push((key.clone(), value.clone())),
                        }
                    }
                    cases.push(Case {
                        name: Some(name.to_owned()),
                        body: Node::Map(body),
                    });
                }
                if cases.is_empty() {
                    return Err(FixtureError::new(
                        FixtureErrorKind::SchemaInvalid,
                        "/cases",
                        "`cases` is empty",
                    ));
                }
                cases
            }
            Some(_) => {
                return Err(FixtureError::new(
                    FixtureErrorKind::SchemaInvalid,
                    "/cases",
                    "`cases` must be a list",
                ));
            }
        };
        let mut cases = cases;
        for (idx, case) in cases.iter_mut().enumerate() {
            let location = case_location(case, idx);
            if vocabulary.graph_shaped() {
                unwrap_graph_block(&mut case.body, &location)?;
            }
            let mapping = case.body.get("mapping").and_then(Node::as_str);
            if let Some(mapping) =
                mapping.filter(|m| id.capability() == "llm-provider" && !KNOWN_MAPPINGS.contains(m))
            {
                return Err(FixtureError::new(
                    FixtureErrorKind::HarnessPrimitiveMissing,
                    &format!("{location}/mapping"),
                    format!("no harness for wire mapping `{mapping}`"),
                ));
            }
        }
        Ok(Fixture { id, path, cases })
    }
}

/// Conformance-adapter §4.2 (0123): a case's `graph:` container holds its graph specification, every other key
/// being its sibling; the two forms are equivalent, so the container's keys are lifted into the case. A graph key
/// written both inside the container and beside it is malformed, except `subgraphs`/`subgraph`, which §5.4 ranks
/// (the container's, innermost, is kept; such cases need a graph engine and are deferred by their vocabulary).
fn unwrap_graph_block(body: &mut Node, location: &str) -> Result<(), FixtureError> {
    let Node::Map(entries) = body else {
        return Ok(());
    };
    let Some(at) = entries.iter().position(|(key, _)| key == "graph") else {
        return Ok(());
    };
    let (_, graph) = entries.remove(at);
    for (key, value) in graph.as_map().unwrap_or_default() {
        match entries.iter_mut().find(|(known, _)| known == key) {
            Some(slot) if key == "subgraphs" || key == "subgraph" => slot.1 = value.clone(),
            Some(_) => {
                return Err(FixtureError::new(
                    FixtureErrorKind::SchemaInvalid,
                    &format!("{location}/graph/{key}"),
                    format!("`{key}` is written both inside the `graph:` container and beside it"),
                ));
            }
            None => entries.push((key.clone(), value.clone())),
        }
    }
    Ok(())
}

/// Where case `idx` sits in its fixture: `/cases/N`, or the root of a single-case fixture.
pub(crate) fn case_location(case: &Case, idx: usize) -> String {
    if case.name.is_some() {
        format!("/cases/{idx}")
    } else {
        String::new()
    }
}

fn check_version(version: &Node) -> Result<(), FixtureError> {
    let invalid = || {
        FixtureError::new(
            FixtureErrorKind::SchemaInvalid,
            "/conformance_version",
            "expected a version \"X.Y.Z\"",
        )
    };
    let text = version.as_str().ok_or_else(invalid)?;
    let mut parts = text.trim_start_matches('v').split('.').map(str::parse::<u64>);
    let (Some(Ok(major)), Some(Ok(minor)), patch, None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(invalid());
    };
    let patch = match patch {
        None => 0,
        Some(Ok(patch)) => patch,
        Some(Err(_)) => return Err(invalid()),
    };
    if (major, minor, patch) > ADAPTER_VERSION {
        let (a, b, c) = ADAPTER_VERSION;
        return Err(FixtureError::new(
            FixtureErrorKind::VersionUnsupported,
            "/conformance_version",
            format!("fixture targets {text}, this adapter targets {a}.{b}.{c}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(capability: &str, text: &str) -> Result<Fixture, FixtureError> {
        Fixture::parse(
            text,
            FixtureId::new(capability, "999-test"),
            PathBuf::from("999-test.yaml"),
        )
    }

    #[test]
    fn cases_inherit_shared_directives_and_keep_their_names() {
        let fixture = parse(
            "llm-provider",
            "mapping: anthropic\ncases:\n  - {name: a, call: {operation: complete}}\n  - {name: b, mapping: gemini}\n",
        )
        .unwrap();
        assert_eq!(fixture.cases.len(), 2);
        assert_eq!(fixture.cases[0].name.as_deref(), Some("a"));
        assert_eq!(
            fixture.cases[0].body.get("mapping").unwrap().as_str(),
            Some("anthropic")
        );
        assert_eq!(
            fixture.cases[1].body.get("mapping").unwrap().as_str(),
            Some("gemini")
        );
        assert_eq!(fixture.id.to_string(), "llm-provider/999-test");
        assert_eq!(fixture.id.number(), Some("999"));
    }

    #[test]
    fn version_pinning_follows_section_4_4() {
        parse(
            "llm-provider",
            "conformance_version: \"0.48.0\"\ncall: {operation: ready}\n",
        )
        .unwrap();
        parse(
            "llm-provider",
            "conformance_version: \"0.118.2\"\ncall: {operation: ready}\n",
        )
        .unwrap();
        let error = parse("llm-provider", "conformance_version: \"0.118.3\"\n").unwrap_err();
        assert_eq!(error.kind(), FixtureErrorKind::VersionUnsupported);
        let error = parse("llm-provider", "conformance_version: \"0.119.0\"\n").unwrap_err();
        assert_eq!(error.kind(), FixtureErrorKind::VersionUnsupported);
        let error = parse("llm-provider", "conformance_version: \"1.x\"\n").unwrap_err();
        assert_eq!(error.kind(), FixtureErrorKind::SchemaInvalid);
    }

    #[test]
    fn unknown_mapping_or_capability_is_a_missing_primitive() {
        let error = parse("llm-provider", "mapping: cohere\n").unwrap_err();
        assert_eq!(error.kind(), FixtureErrorKind::HarnessPrimitiveMissing);
        let error = parse("graph-engine", "entry: a\n").unwrap_err();
        assert_eq!(error.kind(), FixtureErrorKind::HarnessPrimitiveMissing);
    }

    /// 0120: the document root and a case's `graph:` container are checked where they are written.
    #[test]
    fn unknown_keys_at_the_root_and_in_the_graph_block_are_named_there() {
        let error = parse("observability", "colour: red\ncases:\n  - {name: a, entry: x}\n").unwrap_err();
        assert_eq!(error.kind(), FixtureErrorKind::DirectiveUnknown);
        assert_eq!(error.location(), "/colour");
        let error = parse(
            "observability",
            "cases:\n  - {name: a, entry: x}\n  - {name: b, expectd: {}}\n",
        )
        .unwrap_err();
        assert_eq!(error.location(), "/cases/1/expectd");
        let error = parse(
            "conformance-adapter",
            "cases:\n  - {name: a, graph: {entry: x, nodez: {}}}\n",
        )
        .unwrap_err();
        assert_eq!(error.kind(), FixtureErrorKind::DirectiveUnknown);
        assert_eq!(error.location(), "/cases/0/graph/nodez");
        // The container's keys are the case's; written on both sides, malformed.
        let fixture = parse(
            "conformance-adapter",
            "cases:\n  - {name: a, initial_state: {}, graph: {entry: x, nodes: {x: {noop: true}}}}\n",
        )
        .unwrap();
        let body = &fixture.cases[0].body;
        assert_eq!(body.get("entry").and_then(Node::as_str), Some("x"));
        assert!(body.get("graph").is_none());
        let error = parse(
            "observability",
            "cases:\n  - {name: a, entry: y, graph: {entry: x}}\n",
        )
        .unwrap_err();
        assert_eq!(error.kind(), FixtureErrorKind::SchemaInvalid);
        assert_eq!(error.location(), "/cases/0/graph/entry");
    }

    #[test]
    fn structural_errors_are_schema_invalid() {
        for text in ["[1, 2]", "cases: 3", "cases: []", "cases: [{call: {}}]"] {
            let error = parse("llm-provider", text).unwrap_err();
            assert_eq!(error.kind(), FixtureErrorKind::SchemaInvalid, "{text}");
        }
    }
}
