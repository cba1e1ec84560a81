//! Any schema, any provider (issue 36), against the built binary and oa-testkit's scripted vendors: real SchemaStore
//! schemas of drafts 4 and 7 (with `--resource-dir` over the catalog) through `oa complete` and `oa probe` on all
//! three mappings, each verdict equal to `oa validate`'s on the same document; references laid out as files; and
//! `--fit` over the corpus of LLM-shaped schemas with no 400, answers that validate, and an account that is exactly
//! what fitting removed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use oa_testkit::vendor::Vendor;
use oa_testkit::{Request, Responder, Server};
use serde_json::{Value, json};

mod support;

use support::{oa, schemastore, stderr, stdout};

#[path = "../../oa-provider/tests/fit_support/corpus.rs"]
mod corpus_support;

const MAPPINGS: [&str; 3] = ["openai", "anthropic", "gemini"];

fn vendor(mapping: &str) -> Vendor {
    match mapping {
        "openai" => Vendor::OpenAi,
        "anthropic" => Vendor::Anthropic,
        _ => Vendor::Gemini,
    }
}

/// The mapping's base URL on `server` (Gemini's root ends in `/v1beta`).
fn base_url(mapping: &str, server: &Server) -> String {
    match mapping {
        "gemini" => format!("{}beta", server.base_url()),
        _ => server.base_url(),
    }
}

/// A scripted vendor that refuses what `mapping`'s vendor documents as a 400 and otherwise answers `answer` in the
/// form the request asks for (the synthetic tool's call on Anthropic's tool-coercion path, else text).
fn answering(mapping: &'static str, answer: Value) -> Responder {
    let vendor = vendor(mapping);
    Responder::function(move |request: &Request| {
        let body = request.json().unwrap_or_default();
        if let Err(rejection) = vendor.check_request(&body) {
            return rejection.reply();
        }
        let coerced = body["tools"]
            .as_array()
            .is_some_and(|tools| tools.iter().any(|tool| tool["name"] == "structured_output"));
        let text = answer.to_string();
        match mapping {
            "anthropic" if coerced => {
                oa_testkit::anthropic::tool_use_reply("structured_output", answer.clone())
            }
            "anthropic" => oa_testkit::anthropic::text_reply(&text, "end_turn"),
            "openai" => oa_testkit::openai::text_reply(&text, "stop"),
            _ => oa_testkit::gemini::text_reply(&text, "STOP"),
        }
    })
}

/// `oa SUBCOMMAND --json` (`complete` or `probe`) for `mapping` on `server` with `--schema SCHEMA` and `extra` flags
/// and arguments.
fn run(
    subcommand: &str,
    mapping: &str,
    server: &Server,
    schema: &Path,
    extra: &[&dyn AsRef<std::ffi::OsStr>],
) -> std::process::Output {
    let base = base_url(mapping, server);
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![
        &subcommand,
        &"--mapping",
        &mapping,
        &"--base-url",
        &base,
        &"--model",
        &"m",
        &"--schema",
        &schema,
        &"--json",
    ];
    args.extend_from_slice(extra);
    oa(&args)
}

/// `oa complete --json` for `mapping` on `server`, with `extra` flags; (exit code, report, stderr).
fn complete(
    mapping: &str,
    server: &Server,
    schema: &Path,
    extra: &[&dyn AsRef<std::ffi::OsStr>],
) -> (i32, Value, String) {
    let mut extra = extra.to_vec();
    extra.push(&"Fill it in.");
    let output = run("complete", mapping, server, schema, &extra);
    let report = serde_json::from_str(stdout(&output).trim()).unwrap_or(Value::Null);
    (output.status.code().unwrap_or(-1), report, stderr(&output))
}

/// Up to `n` documents of `folder` (`valid/NAME`), sorted.
fn documents(catalog: &Path, folder: &str, n: usize) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(catalog.join(folder))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    paths.sort();
    paths.truncate(n);
    paths
}

/// SchemaStore schemas as users have them: draft 4 (`global`, `web-manifest-share-target`) and draft 7 (`package`,
/// which refers to other catalog schemas by URL, and `github-funding`), with the catalog as `--resource-dir`. For
/// each of their real valid and invalid documents, answered by a scripted vendor of each mapping, `oa complete`
/// gives `oa validate`'s verdict: valid is a parsed answer, invalid fails with the same every-violation report, no
/// verdict is the same input error. A schema a vendor refuses takes the mapping's fallback, never a failed call.
#[test]
fn schemastore_drafts_4_and_7_go_through_every_mapping_with_validates_verdicts() {
    let Some(catalog) =
        schemastore("schemastore_drafts_4_and_7_go_through_every_mapping_with_validates_verdicts")
    else {
        return;
    };
    let schemas = catalog.join("schemas");
    let (mut n_checked, mut n_invalid, mut fallbacks) = (0, 0, 0);
    for name in ["global", "web-manifest-share-target", "package", "github-funding"] {
        let schema = schemas.join(format!("{name}.json"));
        let declared =
            serde_json::from_str::<Value>(&std::fs::read_to_string(&schema).unwrap()).unwrap()["$schema"]
                .clone();
        assert!(
            declared
                .as_str()
                .is_some_and(|uri| uri.contains("draft-04") || uri.contains("draft-07")),
            "{name}: {declared}"
        );
        let mut docs = documents(&catalog, &format!("valid/{name}"), 2);
        docs.extend(documents(&catalog, &format!("invalid/{name}"), 2));
        for doc in docs {
            let validate = oa(&[&"validate", &schema, &doc, &"--resource-dir", &schemas]);
            let verdict = validate.status.code().unwrap();
            let answer: Value = serde_json::from_str(&std::fs::read_to_string(&doc).unwrap()).unwrap();
            for mapping in MAPPINGS {
                let server = Server::start(answering(mapping, answer.clone())).unwrap();
                let (code, report, err) = complete(mapping, &server, &schema, &[&"--resource-dir", &schemas]);
                let shown = doc.display();
                assert_eq!(
                    code, verdict,
                    "{shown} on {mapping}: validate said {verdict}\n{report}\n{err}"
                );
                match verdict {
                    0 => assert_eq!(report["parsed"], answer, "{shown} on {mapping}"),
                    1 => {
                        n_invalid += 1;
                        assert_eq!(
                            report["error"]["category"],
                            json!("structured_output_invalid"),
                            "{shown} on {mapping}: {report}"
                        );
                        assert_eq!(
                            report["error"]["error_message"].as_str().unwrap_or_default(),
                            stdout(&validate).trim_end(),
                            "{shown} on {mapping}: the same every-violation report"
                        );
                    }
                    _ => assert!(err.contains("no verdict"), "{shown} on {mapping}: {err}"),
                }
                if verdict != 2 {
                    // Every call that sent a schema says how, and what the provider was not asked to enforce.
                    assert!(report["schema_sent"].is_string(), "{report}");
                    assert!(!report["unenforced"].as_array().unwrap().is_empty(), "{report}");
                    if report["fallback"] == json!("rejected") {
                        fallbacks += 1;
                        let requests = server.requests();
                        assert!(
                            requests.len() >= 2,
                            "the rejected native request, then the fallback"
                        );
                    }
                }
                n_checked += 1;
            }
        }
    }
    assert_eq!(n_checked, 48, "4 schemas, 4 documents each, 3 mappings");
    assert!(n_invalid >= 18, "{n_invalid} invalid");
    assert!(
        fallbacks > 0,
        "some real schema is refused by a vendor and falls back"
    );
}

/// Every probe answered "four", as a route that enforces nothing would.
fn four(mapping: &'static str) -> Responder {
    Responder::function(move |request: &Request| {
        let body = request.json().unwrap_or_default();
        let coerced = body["tools"].is_array();
        match mapping {
            "anthropic" if coerced => {
                oa_testkit::anthropic::tool_use_reply("structured_output", json!({"answer": "four"}))
            }
            "anthropic" => oa_testkit::anthropic::text_reply(r#"{"answer": "four"}"#, "end_turn"),
            "openai" => oa_testkit::openai::text_reply(r#"{"answer": "four"}"#, "stop"),
            _ => oa_testkit::gemini::text_reply(r#"{"answer": "four"}"#, "STOP"),
        }
    })
}

/// The keywords a `--json` probe report probed.
fn probed(output: &std::process::Output, shown: &str) -> Vec<String> {
    let report: Value =
        serde_json::from_str(stdout(output).trim()).unwrap_or_else(|_| panic!("{shown}: {}", stderr(output)));
    assert_eq!(output.status.code(), Some(1), "{shown}: {report}");
    assert_eq!(report["verdict"], json!("not_enforced"), "{shown}");
    report["keywords"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["verdict"] != json!("not_probed"))
        .map(|row| row["keyword"].as_str().unwrap().to_owned())
        .collect()
}

/// `oa probe --schema` probes the keywords of the schema a call would send: the bundle of a SchemaStore schema that
/// refers to other catalog schemas, on every mapping; with `--fit`, the fitted one, or, where the schema cannot be
/// fitted (package.json has more enum values than OpenAI's strict mode and more unions than Anthropic's take), an
/// error saying so, while a call takes the fallback without sending it natively.
#[test]
fn probe_probes_the_schema_a_call_would_send() {
    let Some(catalog) = schemastore("probe_probes_the_schema_a_call_would_send") else {
        return;
    };
    let schemas = catalog.join("schemas");
    let schema = schemas.join("package.json");
    for mapping in MAPPINGS {
        for fit in [false, true] {
            let server = Server::start(four(mapping)).unwrap();
            let shown = format!("{mapping}, fit {fit}");
            let mut extra: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"--resource-dir", &schemas];
            if fit {
                extra.push(&"--fit");
            }
            let output = run("probe", mapping, &server, &schema, &extra);
            // What the call would send, read through the library as the call reads it.
            let options = oa_schema::Validator::options()
                .defer_unresolved_references(true)
                .base_uri(
                    url::Url::from_file_path(std::fs::canonicalize(&schema).unwrap())
                        .unwrap()
                        .as_str(),
                );
            let caller: Value = serde_json::from_str(&std::fs::read_to_string(&schema).unwrap()).unwrap();
            let request = oa_provider::CompletionRequest::default()
                .with_response_schema(caller)
                .with_schema_options(catalog_resources(options, &schemas))
                .with_fit(fit);
            let sent = oa_provider::fit::native_schema(&request, mapping.parse().unwrap());
            let Ok(Some(sent)) = sent else {
                assert!(fit, "{shown}: {sent:?}");
                assert_eq!(output.status.code(), Some(2), "{shown}");
                assert!(
                    stderr(&output).contains(&format!(
                        "cannot be fitted to the {mapping} mapping's native path"
                    )),
                    "{shown}: {}",
                    stderr(&output)
                );
                let (code, report, err) = complete(mapping, &server, &schema, &extra);
                assert_eq!(code, 0, "{shown}: package.json takes any member: {report}\n{err}");
                assert_eq!(report["fallback"], json!("unfittable"), "{shown}: {report}");
                assert_ne!(report["structured_output_path"], json!("native"), "{shown}");
                assert_eq!(server.requests().len(), 1, "{shown}: nothing sent natively first");
                continue;
            };
            let expected = if fit {
                oa_provider::fit::SchemaForm::Fitted
            } else {
                oa_provider::fit::SchemaForm::Bundled
            };
            assert_eq!(sent.form(), expected, "{shown}");
            assert_eq!(
                probed(&output, &shown),
                oa_provider::enforcement::keywords_used(sent.schema()),
                "{shown}"
            );
        }
    }
    // A schema Anthropic can take fitted: its `maxLength` is probed as written, not once fitted (Anthropic refuses it,
    // so fitting drops it and the route is never asked to enforce it).
    let scratch = tempfile::tempdir().unwrap();
    let small = write(
        &scratch.path().join("small.json"),
        &json!({"type": "object", "properties": {"s": {"type": "string", "maxLength": 9, "enum": ["a"]}},
                "required": ["s"], "additionalProperties": false}),
    );
    let server = Server::start(four("anthropic")).unwrap();
    let written = probed(
        &run("probe", "anthropic", &server, &small, &[]),
        "anthropic, as written",
    );
    let fitted = probed(
        &run("probe", "anthropic", &server, &small, &[&"--fit"]),
        "anthropic, fitted",
    );
    assert!(written.contains(&"maxLength".to_owned()), "{written:?}");
    assert!(
        !fitted.contains(&"maxLength".to_owned()) && fitted.contains(&"enum".to_owned()),
        "{fitted:?}"
    );
}

/// Every catalog schema registered under its `$id` (the test's own reading of the catalog; duplicates keep the
/// first).
fn catalog_resources(
    mut options: oa_schema::ValidatorOptions,
    schemas: &Path,
) -> oa_schema::ValidatorOptions {
    let mut seen = std::collections::HashSet::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(schemas)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    paths.sort();
    for path in paths {
        let Ok(document) = serde_json::from_str::<Value>(&std::fs::read_to_string(&path).unwrap_or_default())
        else {
            continue;
        };
        let id = document
            .get("$id")
            .or_else(|| document.get("id"))
            .and_then(Value::as_str)
            .map(|id| id.trim_end_matches('#').to_owned());
        if let Some(id) = id.filter(|id| id.starts_with("http") && seen.insert(id.clone())) {
            options = options.resource(&id, document);
        }
    }
    options
}

fn write(path: &Path, value: &Value) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, value.to_string()).unwrap();
    path.to_path_buf()
}

/// References as users lay out files, through `oa complete`: a sibling file by its relative `$ref` (the bundle goes
/// to the provider), an unresolvable reference no answer reaches (a warning; the call goes on), the same reached by
/// the answer (an input error naming it), and a catalog with a duplicated `$id` and a broken file that the schema
/// does not use.
#[test]
fn complete_reads_references_as_validate_does() {
    let scratch = tempfile::tempdir().unwrap();
    write(
        &scratch.path().join("address.json"),
        &json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    );
    let person = write(
        &scratch.path().join("person.json"),
        &json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                "properties": {"name": {"type": "string"}, "home": {"$ref": "address.json"},
                               "lint": {"$ref": "https://example.com/lint.json"}}}),
    );
    let catalog = scratch.path().join("catalog");
    write(
        &catalog.join("dup-1.json"),
        &json!({"$id": "https://example.com/dup.json", "type": "string"}),
    );
    write(
        &catalog.join("dup-2.json"),
        &json!({"$id": "https://example.com/dup.json", "type": "number"}),
    );
    std::fs::write(catalog.join("broken.json"), "{ not json").unwrap();
    let server = Server::start(answering("openai", json!({"home": {"city": "Oslo"}}))).unwrap();
    let (code, report, err) = complete("openai", &server, &person, &[&"--resource-dir", &catalog]);
    assert_eq!(code, 0, "{report}\n{err}");
    assert_eq!(report["schema_sent"], json!("bundled"));
    let sent = server.requests()[0].json().unwrap()["response_format"]["json_schema"]["schema"].clone();
    assert_eq!(
        sent["$defs"]["address.json"]["required"],
        json!(["city"]),
        "{sent}"
    );
    support::assert_contains(&err, "warning: $ref \"https://example.com/lint.json\"");
    assert!(err.contains("no instance reached it"), "{err}");
    assert_eq!(err.matches("is claimed by").count(), 1, "{err}");
    assert_eq!(err.matches("broken.json: skipped").count(), 1, "{err}");
    // The answer reaches the missing reference: no verdict, an input error naming it and how to give it.
    let server = Server::start(answering("openai", json!({"lint": {}}))).unwrap();
    let (code, _, err) = complete("openai", &server, &person, &[]);
    assert_eq!(code, 2, "{err}");
    for expected in [
        "no verdict",
        "$ref \"https://example.com/lint.json\"",
        "(reached at #/lint)",
        "--resource-dir DIR",
    ] {
        assert!(err.contains(expected), "{expected:?} not in {err}");
    }
    // The sibling answer breaking the referenced file's clause is judged by it.
    let server = Server::start(answering("gemini", json!({"home": {}}))).unwrap();
    let (code, report, _) = complete("gemini", &server, &person, &[]);
    assert_eq!(code, 1, "{report}");
    assert!(
        report["error"]["error_message"]
            .as_str()
            .unwrap()
            .contains("#/home/city"),
        "{report}"
    );
}

/// `--fit` over the corpus of LLM-shaped schemas (pydantic, zod, OpenAPI, `$ref`-heavy, recursive) on every mapping's
/// scripted vendor: no request draws a 400, the call goes natively and its answer (spelled as the fitted schema wants
/// it) validates against the caller's schema, and the account's fitting entries are exactly fitting's account for the
/// schema (itself checked against the provider table in oa-provider's corpus test), at the caller's pointers.
#[test]
fn fit_sends_every_corpus_schema_without_a_400_and_accounts_for_what_it_removed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../oa-provider/tests/fit_corpus");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    paths.sort();
    assert!(paths.len() >= 30, "{}", paths.len());
    let scratch = tempfile::tempdir().unwrap();
    let mut n_calls = 0;
    for path in paths {
        let entry: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let caller = entry["schema"].clone();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let schema = write(&scratch.path().join(format!("{name}.json")), &caller);
        let validator = oa_schema::Validator::new(&caller).unwrap();
        let bundle = validator.bundle();
        for mapping in MAPPINGS {
            let provider_mapping = mapping.parse::<oa_provider::Mapping>().unwrap();
            let fitted = oa_provider::fit::fit(bundle.schema(), provider_mapping).unwrap();
            let fitted_validator = oa_schema::Validator::new(fitted.schema()).unwrap();
            // The first corpus answer the fitted schema can spell (fitting may narrow some away).
            let Some((answer, spelled)) = entry["answers"].as_array().unwrap().iter().find_map(|answer| {
                corpus_support::encode(answer, &fitted_validator).map(|spelled| (answer.clone(), spelled))
            }) else {
                panic!("{name} on {mapping}: no corpus answer survives fitting");
            };
            let server = Server::start(answering(mapping, spelled)).unwrap();
            let (code, report, err) = complete(mapping, &server, &schema, &[&"--fit"]);
            let shown = format!("{name} on {mapping}");
            assert_eq!(code, 0, "{shown}: {report}\n{err}");
            assert_eq!(server.requests().len(), 1, "{shown}: no 400, no fallback");
            assert_eq!(report["structured_output_path"], json!("native"), "{shown}");
            assert_eq!(report["schema_sent"], json!("fitted"), "{shown}");
            assert!(
                validator.is_valid(&report["parsed"]),
                "{shown}: {}",
                report["parsed"]
            );
            let _ = answer;
            let recorded: Vec<Value> = report["unenforced"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|clause| clause["keyword"] != json!("*"))
                .cloned()
                .collect();
            let mut expected: Vec<Value> = fitted
                .account()
                .iter()
                .map(|clause| {
                    let at = clause.pointer.as_str();
                    let pointer = match bundle.origin(at) {
                        Some(origin) if origin.in_root_document() => origin.pointer().to_owned(),
                        _ => at.to_owned(),
                    };
                    json!({"pointer": pointer, "keyword": bundle.source_keyword(at, &clause.keyword).unwrap_or(&clause.keyword),
                           "reason": clause.reason.as_str()})
                })
                .collect();
            expected.sort_by_key(|clause| (clause["pointer"].to_string(), clause["keyword"].to_string()));
            expected.dedup_by(|a, b| a["pointer"] == b["pointer"] && a["keyword"] == b["keyword"]);
            let mut recorded_sorted = recorded.clone();
            recorded_sorted
                .sort_by_key(|clause| (clause["pointer"].to_string(), clause["keyword"].to_string()));
            assert_eq!(recorded_sorted, expected, "{shown}");
            n_calls += 1;
        }
    }
    assert!(n_calls >= 90, "{n_calls}");
}

/// The account's reasons on a plain call: without a registry the schema sent natively is unverified (one entry for
/// every clause); the prompt path (`--no-native`) asks the provider to enforce nothing; a canary verdict covers the
/// canary's keywords, so only the clause it does not cover (`maximum`) is listed.
#[test]
fn the_account_names_unverified_and_unrequested_clauses() {
    let scratch = tempfile::tempdir().unwrap();
    let schema = write(
        &scratch.path().join("s.json"),
        &json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}, "required": ["n"],
                "additionalProperties": false}),
    );
    let server = Server::start(answering("openai", json!({"n": 1}))).unwrap();
    let (code, report, _) = complete("openai", &server, &schema, &[]);
    assert_eq!(code, 0);
    assert_eq!(report["schema_mode"], json!("unverified"));
    assert_eq!(report["schema_sent"], json!("verbatim"));
    assert_eq!(report["fallback"], Value::Null);
    let reasons: Vec<(&str, &str, &str)> = report["unenforced"]
        .as_array()
        .unwrap()
        .iter()
        .map(|clause| {
            (
                clause["pointer"].as_str().unwrap(),
                clause["keyword"].as_str().unwrap(),
                clause["reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(reasons, [("", "*", "not_verified")]);
    let server = Server::start(answering("openai", json!({"n": 1}))).unwrap();
    let (_, report, _) = complete("openai", &server, &schema, &[&"--no-native"]);
    assert_eq!(report["schema_mode"], json!("prompted"));
    assert_eq!(
        report["unenforced"],
        json!([{"pointer": "", "keyword": "*", "reason": "not_requested"}])
    );
    // A verdict that covers some keywords: the clauses it does not cover are listed one by one.
    let registry = scratch.path().join("registry.json");
    let server = Server::start(answering("openai", json!({"answer": "seventeen"}))).unwrap();
    let base = server.base_url();
    let probe = oa(&[
        &"probe",
        &"--base-url",
        &base,
        &"--model",
        &"m",
        &"--registry",
        &registry,
    ]);
    support::assert_exit(&probe, 0);
    let server = Server::start(answering("openai", json!({"n": 1}))).unwrap();
    // The verdict, moved to the route the call goes to (the probe's server is another port).
    std::fs::write(
        &registry,
        std::fs::read_to_string(&registry)
            .unwrap()
            .replace(&base, &server.base_url()),
    )
    .unwrap();
    let registry_arg = registry.display().to_string();
    let (_, report, err) = complete("openai", &server, &schema, &[&"--registry", &registry_arg]);
    assert_eq!(report["schema_mode"], json!("unverified"), "{report}\n{err}");
    assert_eq!(
        report["unenforced"],
        json!([{"pointer": "/properties/n", "keyword": "maximum", "reason": "not_verified"}])
    );
    // Text mode says it too.
    let server = Server::start(answering("openai", json!({"n": 1}))).unwrap();
    let schema_arg = schema.display().to_string();
    let output = support::complete_command(&server.base_url(), &["--schema", &schema_arg, "hi"])
        .output()
        .unwrap();
    let text = stdout(&output);
    for expected in ["schema_sent: verbatim", "unenforced: 1", "# *: not_verified"] {
        support::assert_contains(&text, expected);
    }
}

/// `--schema -` reads the schema from standard input (no file, so no base for relative references); standard input
/// can stand for only one of the schema and the message.
#[test]
fn the_schema_may_come_from_standard_input_but_not_with_the_message() {
    use std::io::Write;
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    let server = Server::start(answering("openai", json!({"n": 4}))).unwrap();
    let run = |message: &str| {
        let mut child = support::complete_command(&server.base_url(), &["--schema", "-", "--json"])
            .arg(message)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // A run that refuses before reading standard input may close it first: a broken pipe here is that run's
        // answer, which the exit code below checks.
        let written = child
            .stdin
            .take()
            .unwrap()
            .write_all(schema.to_string().as_bytes());
        if let Err(error) = written {
            assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe, "{error}");
        }
        child.wait_with_output().unwrap()
    };
    let output = run("What is two plus two?");
    support::assert_exit(&output, 0);
    let report: Value = serde_json::from_str(stdout(&output).trim()).unwrap();
    assert_eq!(report["parsed"], json!({"n": 4}));
    let output = run("-");
    assert_eq!(output.status.code(), Some(2));
    support::assert_contains(&stderr(&output), "can stand for only one of MESSAGE and --schema");
    assert_eq!(server.requests().len(), 1, "the second call sent nothing");
}
