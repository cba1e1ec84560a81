//! `oa validate`: one instance or a JSONL batch against a schema, printed as text or JSON.

use crate::cli::{Output, ValidateArgs};
use crate::exit::Exit;
use crate::schema_source::{LocationView, Reached, SchemaSource};
use oa_schema::{OutputFormat, ReportOptions, Validator, Violations};
use serde_json::{Value, json};
use std::path::Path;

/// Runs `oa validate` and reports how it ended.
pub(crate) fn run(args: &ValidateArgs) -> Exit {
    let dashes = [Some(&args.schema), args.instance.as_ref(), args.batch.as_ref()]
        .iter()
        .filter(|path| path.is_some_and(|path| path == Path::new("-")))
        .count();
    if dashes > 1 {
        eprintln!("oa validate: standard input (`-`) can stand for only one of SCHEMA, INSTANCE and --batch");
        return Exit::Usage;
    }
    if args.jobs.is_some() && args.batch.is_none() {
        eprintln!(
            "oa validate: --jobs spreads the lines of a --batch file over threads; without --batch it does nothing"
        );
        return Exit::Usage;
    }
    if (args.discriminate || args.max_violations.is_some())
        && matches!(args.output(), Output::Basic | Output::Flag)
    {
        eprintln!(
            "oa validate: --discriminate and --max-violations shape the text and json reports, not --output basic or flag"
        );
        return Exit::Usage;
    }
    let source = match SchemaSource::open(&args.schema, &args.schema_flags, "oa validate") {
        Ok(source) => source,
        Err(message) => {
            eprintln!("oa validate: {message}");
            return Exit::Usage;
        }
    };
    if !args.no_warn {
        crate::hints::warn_misspellings("oa validate", source.document(), args.schema_flags.draft);
    }
    let validator = match source.compile(args.format_assertion) {
        Ok(validator) => validator,
        Err(message) => {
            eprintln!("oa validate: {message}");
            return Exit::Usage;
        }
    };
    let checker = Checker {
        validator,
        report: args.report_options(),
        reached: Reached::default(),
        locations: source.locations(),
    };
    let exit = match (&args.instance, &args.batch) {
        (Some(instance), None) => single(&checker, instance, args.output()),
        (None, Some(batch)) => self::batch(&checker, batch, args.output(), args.jobs()),
        // clap enforces exactly one of the two.
        _ => Exit::Usage,
    };
    checker.reached.warn_unreached(&checker.validator, "oa validate");
    exit
}

/// A file's text, or standard input's for `-`.
fn read(path: &Path) -> Result<String, String> {
    if path == Path::new("-") {
        let mut text = String::new();
        return std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map(|_| text)
            .map_err(|e| format!("standard input: cannot read: {e}"));
    }
    crate::schema_source::read_file(path)
}

/// The compiled schema and the report view asked for (--discriminate, --max-violations), shared by every instance.
pub(crate) struct Checker {
    pub(crate) validator: Validator,
    pub(crate) report: ReportOptions,
    /// The references that resolve to nothing which instances reached.
    pub(crate) reached: Reached,
    /// How the json report shows schema locations.
    pub(crate) locations: LocationView,
}

/// The outcome for one instance: valid, the schema's violations, no verdict (the evaluation reached a reference that
/// resolves to nothing: the message says which), or text that is not JSON at all.
pub(crate) enum Outcome {
    Valid(Value),
    Invalid(Value, Violations),
    NoVerdict(Value, Violations, String),
    Malformed(String),
}

impl Outcome {
    pub(crate) fn of(checker: &Checker, text: &str) -> Self {
        match oa_schema::parse_json(text) {
            Err(error) => Outcome::Malformed(error.to_string()),
            Ok(instance) => match checker.validator.validate_with(&instance, &checker.report) {
                Ok(()) => Outcome::Valid(instance),
                Err(violations) if checker.reached.note(&violations) => {
                    let message = crate::schema_source::unresolved_reached(&checker.validator, &violations)
                        .unwrap_or_else(|| violations.error_message());
                    Outcome::NoVerdict(instance, violations, message)
                }
                Err(violations) => Outcome::Invalid(instance, violations),
            },
        }
    }

    /// The outcome in a 2020-12 output format. Malformed text has no instance to locate anything in: "basic" then
    /// carries one unit holding only the error, and "flag" is simply invalid.
    fn to_standard_output(&self, validator: &Validator, format: OutputFormat) -> Value {
        match self {
            Outcome::Valid(instance) | Outcome::Invalid(instance, _) | Outcome::NoVerdict(instance, ..) => {
                validator.output(instance, format)
            }
            Outcome::Malformed(message) => match format {
                OutputFormat::Basic => json!({ "valid": false, "errors": [{ "error": message }] }),
                // Flag, and any format added later: the verdict alone.
                _ => json!({ "valid": false }),
            },
        }
    }

    /// The JSON form of `output` (the violations object, or a 2020-12 output format).
    pub(crate) fn to_output_value(
        &self,
        validator: &Validator,
        locations: &LocationView,
        output: Output,
    ) -> Value {
        match output {
            Output::Basic => self.to_standard_output(validator, OutputFormat::Basic),
            Output::Flag => self.to_standard_output(validator, OutputFormat::Flag),
            _ => self.to_json(locations),
        }
    }

    fn render(&self, validator: &Validator, locations: &LocationView, output: Output) -> String {
        match output {
            Output::Json => self.to_json(locations).to_string(),
            Output::Text => self.to_text(),
            Output::Basic => self
                .to_standard_output(validator, OutputFormat::Basic)
                .to_string(),
            Output::Flag => self.to_standard_output(validator, OutputFormat::Flag).to_string(),
        }
    }

    pub(crate) fn is_valid(&self) -> bool {
        matches!(self, Outcome::Valid(_))
    }

    fn to_json(&self, locations: &LocationView) -> Value {
        let violations: Vec<Value> = match self {
            Outcome::Valid(_) => Vec::new(),
            Outcome::Malformed(message) => vec![json!({
                "location": null,
                "keyword": null,
                "schema_location": null,
                "message": message,
            })],
            Outcome::Invalid(_, violations) | Outcome::NoVerdict(_, violations, _) => violations
                .iter()
                .map(|violation| {
                    let mut object = json!({
                        "location": violation.instance_location().to_fragment(),
                        "keyword": violation.keyword(),
                        "schema_location": locations.show(violation.schema_location().absolute()),
                        "message": violation.message(),
                    });
                    if let Some(reference) = violation.unresolved_reference() {
                        object["unresolved_reference"] = json!(reference);
                    }
                    object
                })
                .collect(),
        };
        let mut object = json!({ "valid": self.is_valid(), "violations": violations });
        // Only an instance that reaches a reference resolving to nothing has no verdict; the field appears only
        // then.
        if let Outcome::NoVerdict(_, _, message) = self {
            object["no_verdict"] = json!(message);
        }
        // Only a --max-violations cap leaves violations out; the field appears only then.
        if let Outcome::Invalid(_, violations) | Outcome::NoVerdict(_, violations, _) = self
            && violations.omitted() > 0
        {
            object["omitted"] = json!(violations.omitted());
            if violations.omitted_alternatives() > 0 {
                object["omitted_alternatives"] = json!(violations.omitted_alternatives());
            }
        }
        object
    }

    pub(crate) fn to_text(&self) -> String {
        match self {
            Outcome::Valid(_) => "valid".to_owned(),
            Outcome::Malformed(message) => message.clone(),
            Outcome::Invalid(_, violations) => violations.error_message(),
            Outcome::NoVerdict(_, _, message) => message.clone(),
        }
    }
}

fn single(checker: &Checker, instance_path: &Path, output: Output) -> Exit {
    let text = match read(instance_path) {
        Ok(text) => text,
        Err(message) => {
            eprintln!("oa validate: {message}");
            return Exit::Usage;
        }
    };
    let outcome = Outcome::of(checker, &text);
    if let Outcome::NoVerdict(_, _, message) = &outcome {
        eprintln!("oa validate: {}: {message}", instance_path.display());
        return Exit::Usage;
    }
    outln!(
        "{}",
        outcome.render(&checker.validator, &checker.locations, output)
    );
    if outcome.is_valid() {
        Exit::Ok
    } else {
        Exit::Finding
    }
}

fn batch(checker: &Checker, batch_path: &Path, output: Output, jobs: usize) -> Exit {
    let mut input: Box<dyn std::io::BufRead> = if batch_path == Path::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        match std::fs::File::open(batch_path) {
            Ok(file) => Box::new(std::io::BufReader::new(file)),
            Err(e) => {
                eprintln!("oa validate: {}: cannot read: {e}", batch_path.display());
                return Exit::Usage;
            }
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let totals = match crate::batch::run(checker, &mut input, output, jobs, &mut out) {
        Ok(totals) => totals,
        Err(e) => {
            eprintln!("oa validate: {}: cannot read: {e}", batch_path.display());
            return Exit::Usage;
        }
    };
    if totals.partial {
        eprintln!(
            "oa validate: stopped after {} lines because the output closed",
            totals.n_lines()
        );
    }
    eprintln!("{}", totals.summary());
    if totals.n_no_verdict > 0 {
        eprintln!(
            "oa validate: {}: {} line(s) reach a reference that resolves to no schema (each line says which)",
            batch_path.display(),
            totals.n_no_verdict
        );
        Exit::Usage
    } else if totals.n_invalid == 0 && totals.n_unreadable == 0 {
        // The verdict of what was judged: a closed output never turns an invalid line into exit 0.
        Exit::Ok
    } else {
        Exit::Finding
    }
}
