//! `oa validate`: one instance or a JSONL batch against a schema, printed as text or JSON.

use crate::cli::{Output, ValidateArgs};
use crate::exit::Exit;
use crate::schema_source::{LocationView, Reached, SchemaSource};
use oa_schema::{IncrementalError, MalformedKind, OutputFormat, ReportOptions, Validator, Violations};
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
        streams: matches!(args.output(), Output::Text | Output::Json | Output::Flag) && !args.discriminate,
        max_violations: args
            .max_violations
            .map(|max| usize::try_from(max).unwrap_or(usize::MAX)),
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
    /// Whether instances are judged as their bytes are read, keeping no value (`Incremental::without_value`): the
    /// text and json outputs (`--max-violations` caps the report afterwards, as `validate_with` does) and `flag`
    /// (the verdict alone), which read nothing but the report. Not `--discriminate`, which steers the evaluation,
    /// nor `basic`, which locates each unit in the value.
    pub(crate) streams: bool,
    /// The `--max-violations` cap, applied to a report the incremental route made.
    pub(crate) max_violations: Option<usize>,
}

/// The outcome for one instance: valid, the schema's violations, no verdict (the evaluation reached a reference that
/// resolves to nothing: the message says which), text nested deeper than the reader's limit (no verdict either: a
/// limit, not a fault of the text), or text that is not JSON at all. The instance's value is kept
/// when an output needs it (`None` when it was judged as read: see [`Checker::streams`]).
pub(crate) enum Outcome {
    Valid(Option<Value>),
    Invalid(Option<Value>, Violations),
    NoVerdict(Option<Value>, Violations, String),
    /// More arrays and objects open at once than the reader allows (issue 38: reported as a limit, never as
    /// malformed JSON); the message is `IncrementalError::TooDeep`'s, which names the limit and where it was passed.
    TooDeep(String),
    Malformed(String),
}

/// The bytes read at a time from an instance file judged as it is read.
const READ_CHUNK: usize = 64 << 10;

/// The smallest instance judged as it is read (the incremental route, memory bounded by the nesting). Below it the
/// whole-slice route (`validate_bytes`) judges the text in one pass, faster, at the cost of reading whole into a
/// value the containers its typed plans do not cover (or the whole text where its reading fails): small anyway.
const STREAM_MIN_BYTES: u64 = 1 << 20;

impl Outcome {
    pub(crate) fn of(checker: &Checker, text: &str) -> Self {
        if checker.streams {
            let ended = if text.len() as u64 >= STREAM_MIN_BYTES {
                let mut run = checker.validator.incremental().without_value();
                run.feed(text.as_bytes()).and_then(|()| run.finish())
            } else {
                checker.validator.validate_bytes(text.as_bytes())
            };
            if let Some(outcome) = Self::judged(checker, ended) {
                return outcome;
            }
        }
        match oa_schema::parse_json(text) {
            // `parse_json` refuses the same depth as the incremental reader's default; its message calls that
            // malformed, so the reader that names the limit says it.
            Err(error) if error.kind() == MalformedKind::TooDeep => {
                match checker.validator.validate_bytes(text.as_bytes()) {
                    Err(too_deep @ IncrementalError::TooDeep { .. }) => {
                        Outcome::TooDeep(too_deep.to_string())
                    }
                    _ => Outcome::Malformed(error.to_string()),
                }
            }
            Err(error) => Outcome::Malformed(error.to_string()),
            Ok(instance) => match checker.validator.validate_with(&instance, &checker.report) {
                Ok(()) => Outcome::Valid(Some(instance)),
                Err(violations) => Self::of_report(checker, Some(instance), violations),
            },
        }
    }

    /// The outcome of an instance file of 1 MiB or more judged as it is read, 64 KiB at a time (memory bounded by its
    /// nesting, not its size); `None` when it must be read whole instead (smaller, see [`judged`](Self::judged), not
    /// UTF-8, or unreadable: the whole read says so, as before).
    fn of_file(checker: &Checker, path: &Path) -> Option<Self> {
        use std::io::Read;
        let mut file = std::fs::File::open(path).ok()?;
        if file.metadata().ok()?.len() < STREAM_MIN_BYTES {
            return None;
        }
        let mut run = checker.validator.incremental().without_value();
        let mut buffer = vec![0; READ_CHUNK];
        // The bytes of a UTF-8 sequence cut by the last read.
        let mut held = 0;
        loop {
            let read = file.read(&mut buffer[held..]).ok()?;
            if read == 0 {
                break;
            }
            let filled = held + read;
            let valid = match std::str::from_utf8(&buffer[..filled]) {
                Ok(_) => filled,
                Err(error) if error.error_len().is_none() => error.valid_up_to(),
                Err(_) => return None,
            };
            if let Err(error) = run.feed(&buffer[..valid]) {
                return Self::judged(checker, Err(error));
            }
            buffer.copy_within(valid..filled, 0);
            held = filled - valid;
        }
        if held > 0 {
            return None;
        }
        Self::judged(checker, run.finish())
    }

    /// The outcome the incremental or whole-slice route gave, or `None` where `oa validate` reads the text otherwise: a
    /// repeated member name (it takes the last, as `parse_json` does).
    fn judged(checker: &Checker, ended: Result<(), IncrementalError>) -> Option<Self> {
        match ended {
            Ok(()) => Some(Outcome::Valid(None)),
            Err(IncrementalError::Invalid(violations)) => {
                let violations = match checker.max_violations {
                    Some(max) => violations.capped(max),
                    None => violations,
                };
                Some(Self::of_report(checker, None, violations))
            }
            Err(IncrementalError::Malformed(error)) if error.kind() != MalformedKind::DuplicateKey => {
                Some(Outcome::Malformed(error.to_string()))
            }
            Err(too_deep @ IncrementalError::TooDeep { .. }) => Some(Outcome::TooDeep(too_deep.to_string())),
            Err(_) => None,
        }
    }

    /// An invalid instance's outcome: no verdict when the report reached a reference that resolves to nothing.
    fn of_report(checker: &Checker, instance: Option<Value>, violations: Violations) -> Self {
        if checker.reached.note(&violations) {
            let message = crate::schema_source::unresolved_reached(&checker.validator, &violations)
                .unwrap_or_else(|| violations.error_message());
            return Outcome::NoVerdict(instance, violations, message);
        }
        Outcome::Invalid(instance, violations)
    }

    /// The outcome in a 2020-12 output format. Malformed text has no instance to locate anything in: "basic" then
    /// carries one unit holding only the error, and "flag" is simply invalid.
    fn to_standard_output(&self, validator: &Validator, format: OutputFormat) -> Value {
        match self {
            Outcome::Valid(Some(instance))
            | Outcome::Invalid(Some(instance), _)
            | Outcome::NoVerdict(Some(instance), ..) => validator.output(instance, format),
            // Not made: an instance judged as read has only the text and json outputs (`Checker::streams`).
            Outcome::Valid(None) | Outcome::Invalid(None, _) | Outcome::NoVerdict(None, ..) => {
                json!({ "valid": self.is_valid() })
            }
            Outcome::Malformed(message) | Outcome::TooDeep(message) => match format {
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
            Outcome::Malformed(message) | Outcome::TooDeep(message) => vec![json!({
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
        if let Outcome::NoVerdict(_, _, message) | Outcome::TooDeep(message) = self {
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
            Outcome::Malformed(message) | Outcome::TooDeep(message) => message.clone(),
            Outcome::Invalid(_, violations) => violations.error_message(),
            Outcome::NoVerdict(_, _, message) => message.clone(),
        }
    }
}

fn single(checker: &Checker, instance_path: &Path, output: Output) -> Exit {
    let streamed = (checker.streams && instance_path != Path::new("-"))
        .then(|| Outcome::of_file(checker, instance_path))
        .flatten();
    let outcome = match streamed {
        Some(outcome) => outcome,
        None => match read(instance_path) {
            Ok(text) => Outcome::of(checker, &text),
            Err(message) => {
                eprintln!("oa validate: {message}");
                return Exit::Usage;
            }
        },
    };
    if let Outcome::NoVerdict(_, _, message) | Outcome::TooDeep(message) = &outcome {
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
            "oa validate: {}: {} line(s) without a verdict (each line says why: a reference that resolves to no schema, \
             or nesting deeper than the reader's limit)",
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
