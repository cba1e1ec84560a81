//! `oa validate` judges an instance file of 1 MiB or more as it reads it (the incremental route, keeping no value)
//! for the text and json outputs (`--max-violations` included) and `--output flag`: the same output and exit code
//! as the value route, which `--discriminate` still takes (on these schemas, without unions, it changes no
//! report); a repeated member name and nesting beyond the incremental limit are read as before (the last repeat
//! wins, `parse_json` names the depth). Small documents are padded with whitespace past 1 MiB so that they take
//! the route too; unpadded, they take the whole-slice route (`validate_bytes`), held to the value route the same way.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use std::path::PathBuf;
use support::{oa, stdout};

struct Case {
    dir: tempfile::TempDir,
}

impl Case {
    /// The instance padded past 1 MiB: read in chunks.
    fn new(instance: &str) -> Self {
        Self::unpadded(&format!("{instance}{}", " ".repeat((1 << 20) + 1)))
    }

    /// The instance as it is: judged whole, in one pass over its bytes.
    fn unpadded(instance: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let schema = json!({
            "type": "array",
            "items": {
                "type": "object",
                "properties": { "name": { "type": "string", "maxLength": 12 }, "n": { "type": "integer" } },
                "required": ["name"],
                "additionalProperties": false
            }
        });
        std::fs::write(dir.path().join("schema.json"), schema.to_string()).unwrap();
        std::fs::write(dir.path().join("instance.json"), instance).unwrap();
        Self { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Exit code and standard output of `oa validate SCHEMA INSTANCE ARGS`.
    fn validate(&self, args: &[&str]) -> (Option<i32>, String) {
        let (schema, instance) = (self.path("schema.json"), self.path("instance.json"));
        let mut all: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"validate", &schema, &instance];
        for arg in args {
            all.push(arg);
        }
        let output = oa(&all);
        (output.status.code(), stdout(&output))
    }

    /// The streamed route and the value route (`--discriminate`) agree, in json and in text, with and without a
    /// cap; and `--output flag` gives the verdict the json report gives.
    fn routes_agree(&self) -> (Option<i32>, String) {
        let json = self.validate(&["--output", "json"]);
        assert_eq!(json, self.validate(&["--output", "json", "--discriminate"]));
        let text = self.validate(&[]);
        assert_eq!(text, self.validate(&["--discriminate"]));
        for cap in ["1", "2", "1000000"] {
            for output in ["json", "text"] {
                let capped = self.validate(&["--output", output, "--max-violations", cap]);
                assert_eq!(
                    capped,
                    self.validate(&["--output", output, "--max-violations", cap, "--discriminate"]),
                    "--max-violations {cap}, {output}"
                );
            }
        }
        let code = json.0;
        let valid = code == Some(0);
        assert_eq!(
            self.validate(&["--output", "flag"]),
            (code, format!("{{\"valid\":{valid}}}\n"))
        );
        json
    }
}

#[test]
fn a_file_read_in_chunks_gives_the_value_routes_report() {
    // About 1 MB: rows whose names hold two- and four-byte characters, so that 64 KiB reads cut them; a few rows
    // invalid, far apart.
    let rows: Vec<String> = (0..20_000)
        .map(|index| match index {
            3 => r#"{"name": "much too long a name"}"#.to_owned(),
            9_999 => r#"{"n": 1, "extra": true}"#.to_owned(),
            19_998 => r#"{"name": 5}"#.to_owned(),
            _ => format!("{{\"name\": \"r\u{e9}\u{1F600}{index}\", \"n\": {index}}}"),
        })
        .collect();
    let case = Case::new(&format!("[{}]", rows.join(",\n")));
    let (code, json) = case.routes_agree();
    assert_eq!(code, Some(1), "{json}");
    assert_eq!(
        locations(&json),
        ["#/3/name", "#/9999/extra", "#/9999/name", "#/19998/name"]
    );
    // Capped through the streamed route: the first two kept, the rest counted.
    let (code, capped) = case.validate(&["--output", "json", "--max-violations", "2"]);
    assert_eq!(code, Some(1));
    let capped: serde_json::Value = serde_json::from_str(&capped).unwrap();
    assert_eq!(capped["violations"].as_array().unwrap().len(), 2, "{capped}");
    assert_eq!(capped["omitted"], 2, "{capped}");
}

/// The instance locations of a json report, in its order.
fn locations(json: &str) -> Vec<String> {
    let report: serde_json::Value = serde_json::from_str(json).unwrap();
    report["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|violation| violation["location"].as_str().unwrap().to_owned())
        .collect()
}

/// Both ways of reading a text: padded past 1 MiB (in chunks) and as it is (whole).
fn both(instance: &str) -> [Case; 2] {
    [Case::new(instance), Case::unpadded(instance)]
}

#[test]
fn a_small_instance_read_whole_gives_the_value_routes_report() {
    for case in
        both(r#"[{"name": "much too long a name"}, {"n": 1, "extra": true}, {"name": 5}, {"name": "ok"}]"#)
    {
        let (code, json) = case.routes_agree();
        assert_eq!(code, Some(1), "{json}");
        assert_eq!(
            locations(&json),
            ["#/0/name", "#/1/extra", "#/1/name", "#/2/name"]
        );
    }
}

#[test]
fn valid_and_malformed_files_agree_too() {
    for case in both(r#"[{"name": "a"}, {"name": "b", "n": 2}]"#) {
        assert_eq!(
            case.routes_agree(),
            (Some(0), "{\"valid\":true,\"violations\":[]}\n".to_owned())
        );
    }
    for case in both(r#"[{"name": "a"}, {"name": "b", "n": 2},]"#) {
        let (code, json) = case.routes_agree();
        assert_eq!(code, Some(1));
        assert!(json.contains("trailing comma"), "{json}");
    }
}

#[test]
fn a_repeated_name_and_deep_nesting_are_read_as_before() {
    // The last `name` wins, as `parse_json` reads it: valid.
    for case in both(r#"[{"name": 5, "name": "b"}]"#) {
        assert_eq!(case.routes_agree().0, Some(0));
    }
}

/// Issue 38: nesting beyond the reader's limit (127 open arrays and objects, what `parse_json` accepts) is reported
/// as that limit, never as malformed JSON, on every route; it gives no verdict (exit 2), as an unresolvable
/// reference does. At the limit the text is judged.
#[test]
fn nesting_beyond_the_limit_is_a_limit_not_malformed_json() {
    let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    for case in both(&nested(127)) {
        // Judged: the innermost arrays are not the objects the schema's items ask for.
        let (code, json) = case.routes_agree();
        assert_eq!(code, Some(1), "{json}");
    }
    for depth in [128, 200] {
        for case in both(&nested(depth)) {
            for args in [
                &[][..],
                &["--output", "json"],
                &["--output", "flag"],
                &["--output", "basic"],
                &["--discriminate"],
                &["--max-violations", "1"],
            ] {
                let (schema, instance) = (case.path("schema.json"), case.path("instance.json"));
                let mut all: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"validate", &schema, &instance];
                for arg in args {
                    all.push(arg);
                }
                let output = oa(&all);
                let stderr = String::from_utf8_lossy(&output.stderr);
                assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
                assert_eq!(stdout(&output), "", "{args:?}");
                assert!(
                    stderr.contains(
                        "nesting deeper than the limit of 127 open arrays and objects at line 1, column 128"
                    ),
                    "{args:?}: {stderr}"
                );
                assert!(!stderr.contains("malformed"), "{args:?}: {stderr}");
            }
        }
    }
}

/// A batch line nested beyond the limit has no verdict, says why, and the others are judged.
#[test]
fn a_batch_line_nested_beyond_the_limit_has_no_verdict() {
    let case = Case::unpadded("[]");
    let batch = case.path("batch.jsonl");
    std::fs::write(&batch, format!("{}{}\n[]\n", "[".repeat(200), "]".repeat(200))).unwrap();
    let schema = case.path("schema.json");
    let output = oa(&[&"validate", &"--batch", &batch, &"--output", &"json", &schema]);
    assert_eq!(output.status.code(), Some(2));
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(
        lines[0]["no_verdict"],
        "nesting deeper than the limit of 127 open arrays and objects at line 1, column 128"
    );
    assert_eq!(lines[0]["valid"], false);
    assert_eq!(lines[1]["valid"], true);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("1 valid, 0 invalid, 0 unreadable, 1 without a verdict"),
        "{stderr}"
    );
    assert!(
        stderr.contains("nesting deeper than the reader's limit"),
        "{stderr}"
    );
}
