//! Test support: reads cases of the official JSON Schema Test Suite from `../shared`, failing loudly if absent.

use serde_json::Value;
use std::path::PathBuf;

/// One test of the suite, flattened with its group.
#[derive(Debug, Clone)]
pub(crate) struct Case {
    /// The file the case came from, relative to `tests/draft2020-12`.
    pub(crate) file: String,
    /// The group's description.
    pub(crate) group: String,
    /// The test's description.
    pub(crate) description: String,
    /// The group's schema.
    pub(crate) schema: Value,
    /// The instance.
    pub(crate) data: Value,
    /// Whether the instance is valid against the schema.
    pub(crate) valid: bool,
}

impl Case {
    /// A name for failure messages.
    pub(crate) fn name(&self) -> String {
        format!("{} / {} / {}", self.file, self.group, self.description)
    }
}

/// The suite's `tests/draft2020-12` folder. Panics with a loud message when `../shared` is missing: a test that
/// needs the suite must never pass without it, in CI or outside it.
pub(crate) fn draft_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/json-schema-test-suite/tests/draft2020-12");
    if !dir.is_dir() {
        let in_ci = std::env::var("CI").is_ok_and(|v| v == "true");
        eprintln!(
            "\n*** oa-schema: the JSON Schema Test Suite is missing at {} ***\n*** (expected ../shared next to the \
             repository; CI={in_ci}) ***\n",
            dir.display()
        );
        panic!("JSON Schema Test Suite not found at {}", dir.display());
    }
    dir
}

/// Every case of one suite file, e.g. `optional/format/date.json`.
pub(crate) fn load(relative: &str) -> Vec<Case> {
    let path = draft_dir().join(relative);
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let groups: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("bad JSON in {}: {e}", path.display()));
    let mut cases = Vec::new();
    for group in groups
        .as_array()
        .unwrap_or_else(|| panic!("{relative}: not an array"))
    {
        let group_description = group["description"].as_str().unwrap_or_default().to_owned();
        for test in group["tests"]
            .as_array()
            .unwrap_or_else(|| panic!("{relative}: group without tests"))
        {
            cases.push(Case {
                file: relative.to_owned(),
                group: group_description.clone(),
                description: test["description"].as_str().unwrap_or_default().to_owned(),
                schema: group["schema"].clone(),
                data: test["data"].clone(),
                valid: test["valid"]
                    .as_bool()
                    .unwrap_or_else(|| panic!("{relative}: test without valid")),
            });
        }
    }
    assert!(!cases.is_empty(), "{relative} holds no cases");
    cases
}
