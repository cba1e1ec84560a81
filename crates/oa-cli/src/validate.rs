//! `oa validate`: one instance or a JSONL batch against a schema, printed as text or JSON.

use crate::cli::{Output, ValidateArgs};
use crate::exit::Exit;
use crate::progress::Progress;
use oa_schema::{OutputFormat, Validator, Violations};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

/// Runs `oa validate` and reports how it ended.
pub(crate) fn run(args: &ValidateArgs) -> Exit {
    let validator = match load_validator(args) {
        Ok(validator) => validator,
        Err(message) => {
            eprintln!("oa validate: {message}");
            return Exit::Usage;
        }
    };
    match (&args.instance, &args.batch) {
        (Some(instance), None) => single(&validator, instance, args.output),
        (None, Some(batch)) => self::batch(&validator, batch, args.output),
        // clap enforces exactly one of the two.
        _ => Exit::Usage,
    }
}

fn load_validator(args: &ValidateArgs) -> Result<Validator, String> {
    let schema_path = &args.schema;
    let text = read(schema_path)?;
    let schema: Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: the schema is not well-formed JSON: {e}",
            schema_path.display()
        )
    })?;
    let options = Validator::options()
        .format_assertion(args.format_assertion)
        .default_draft(args.draft);
    crate::resources::register(options, &args.resource, &args.resource_dir, args.draft)?
        .build(&schema)
        .map_err(|e| format!("{}: invalid schema: {e}", schema_path.display()))
}

pub(crate) fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))
}

/// The outcome for one instance: valid, the schema's violations, or text that is not JSON at all.
enum Outcome {
    Valid(Value),
    Invalid(Value, Violations),
    Malformed(String),
}

impl Outcome {
    fn of(validator: &Validator, text: &str) -> Self {
        match oa_schema::parse_json(text) {
            Err(error) => Outcome::Malformed(error.to_string()),
            Ok(instance) => match validator.validate(&instance) {
                Ok(()) => Outcome::Valid(instance),
                Err(violations) => Outcome::Invalid(instance, violations),
            },
        }
    }

    /// The outcome in a 2020-12 output format. Malformed text has no instance to locate anything in: "basic" then
    /// carries one unit holding only the error, and "flag" is simply invalid.
    fn to_standard_output(&self, validator: &Validator, format: OutputFormat) -> Value {
        match self {
            Outcome::Valid(instance) | Outcome::Invalid(instance, _) => validator.output(instance, format),
            Outcome::Malformed(message) => match format {
                OutputFormat::Basic => json!({ "valid": false, "errors": [{ "error": message }] }),
                // Flag, and any format added later: the verdict alone.
                _ => json!({ "valid": false }),
            },
        }
    }

    fn render(&self, validator: &Validator, output: Output) -> String {
        match output {
            Output::Json => self.to_json().to_string(),
            Output::Text => self.to_text(),
            Output::Basic => self
                .to_standard_output(validator, OutputFormat::Basic)
                .to_string(),
            Output::Flag => self.to_standard_output(validator, OutputFormat::Flag).to_string(),
        }
    }

    fn is_valid(&self) -> bool {
        matches!(self, Outcome::Valid(_))
    }

    fn to_json(&self) -> Value {
        let violations: Vec<Value> = match self {
            Outcome::Valid(_) => Vec::new(),
            Outcome::Malformed(message) => vec![json!({
                "location": null,
                "keyword": null,
                "schema_location": null,
                "message": message,
            })],
            Outcome::Invalid(_, violations) => violations
                .iter()
                .map(|violation| {
                    json!({
                        "location": violation.instance_location().to_fragment(),
                        "keyword": violation.keyword(),
                        "schema_location": violation.schema_location().to_string(),
                        "message": violation.message(),
                    })
                })
                .collect(),
        };
        json!({ "valid": self.is_valid(), "violations": violations })
    }

    fn to_text(&self) -> String {
        match self {
            Outcome::Valid(_) => "valid".to_owned(),
            Outcome::Malformed(message) => message.clone(),
            Outcome::Invalid(_, violations) => violations.error_message(),
        }
    }
}

fn single(validator: &Validator, instance_path: &Path, output: Output) -> Exit {
    let text = match read(instance_path) {
        Ok(text) => text,
        Err(message) => {
            eprintln!("oa validate: {message}");
            return Exit::Usage;
        }
    };
    let outcome = Outcome::of(validator, &text);
    // A reader that went away (a closed pipe) is not an error of ours: the exit code still tells the verdict.
    let _ = writeln!(std::io::stdout(), "{}", outcome.render(validator, output));
    if outcome.is_valid() {
        Exit::Ok
    } else {
        Exit::Finding
    }
}

fn batch(validator: &Validator, batch_path: &Path, output: Output) -> Exit {
    let file = match std::fs::File::open(batch_path) {
        Ok(file) => file,
        Err(e) => {
            eprintln!("oa validate: {}: cannot read: {e}", batch_path.display());
            return Exit::Usage;
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut all_valid = true;
    let mut progress = Progress::new("validated");
    for (line_idx, line) in BufReader::new(file).lines().enumerate() {
        let line = match line {
            Ok(line) => line,
            Err(e) => {
                eprintln!(
                    "oa validate: {}: line {}: cannot read: {e}",
                    batch_path.display(),
                    line_idx + 1
                );
                return Exit::Usage;
            }
        };
        let outcome = Outcome::of(validator, &line);
        all_valid &= outcome.is_valid();
        let printed = match output {
            Output::Json | Output::Basic | Output::Flag => {
                let mut value = match output {
                    Output::Basic => outcome.to_standard_output(validator, OutputFormat::Basic),
                    Output::Flag => outcome.to_standard_output(validator, OutputFormat::Flag),
                    _ => outcome.to_json(),
                };
                value["line"] = json!(line_idx + 1);
                value.to_string()
            }
            Output::Text => {
                let status = if outcome.is_valid() { "valid" } else { "invalid" };
                let mut text = format!("line {}: {status}", line_idx + 1);
                if !outcome.is_valid() {
                    for detail in outcome.to_text().lines() {
                        text.push_str("\n  ");
                        text.push_str(detail);
                    }
                }
                text
            }
        };
        if writeln!(out, "{printed}").is_err() {
            // The reader went away (a closed pipe): stop quietly, as Unix tools do.
            break;
        }
        progress.tick();
    }
    progress.finish();
    if all_valid { Exit::Ok } else { Exit::Finding }
}
