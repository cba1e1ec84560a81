//! Reading a schema file and everything it refers to, shared by the subcommands that take a schema (`oa validate`,
//! and `oa complete` and `oa probe` with the same flags, through [`CallSchema`]): the schema file's `file://` URI as its base, so that a
//! relative `$ref` to a sibling file resolves; files read on demand only from the schema's own folder tree and the
//! `--resource-dir` folders (never the network: an `http(s)` reference resolves only through a registered `$id`);
//! `--resource` files registered up front; references that resolve to nothing deferred, warned about when no
//! instance reaches them and an input error when one does.

mod disk;
mod report;

pub(crate) use report::{Reached, unresolved_reached};

use clap::Args;
use oa_schema::{Draft, Validator, ValidatorOptions};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The flags of every subcommand that reads a schema.
#[derive(Debug, Clone, Args)]
pub(crate) struct SchemaFlags {
    /// The draft of a schema (or resource) that declares no `$schema`; a declared `$schema` always wins.
    #[arg(long, value_name = "4|6|7|2019-09|2020-12", default_value = "2020-12")]
    pub(crate) draft: Draft,
    /// A schema the schema refers to, registered under its `$id` (draft 4: `id`) and its file URI. One file per
    /// flag; repeat the flag for more.
    #[arg(long, value_name = "FILE", action = clap::ArgAction::Append)]
    pub(crate) resource: Vec<PathBuf>,
    /// A folder of schemas the schema may refer to: every `.json` file in it and its subfolders, found by its `$id`
    /// or its file URI when a reference needs it. A file that cannot be read, or an `$id` two files claim, is a
    /// warning; it fails the run only when a reference that is used needs it.
    #[arg(long, value_name = "DIR", action = clap::ArgAction::Append)]
    pub(crate) resource_dir: Vec<PathBuf>,
}

/// A schema read from its file (or standard input), with what compiling it needs.
#[derive(Debug)]
pub(crate) struct SchemaSource {
    /// The schema as read.
    document: Value,
    /// Where it was read from, as the user wrote it (for messages).
    shown: String,
    /// The options that find what it refers to: base URI, retriever, `--resource` files, `--draft`, deferred
    /// unresolved references.
    options: ValidatorOptions,
    /// The draft it is read as when it declares no `$schema` (`--draft`).
    draft: Draft,
    /// How reports show schema locations: relative to the schema file.
    locations: LocationView,
}

impl SchemaSource {
    /// Reads the schema at `path` (`-`: standard input) and prepares the resources `flags` name; `command` names the
    /// subcommand in warnings (printed to stderr, once per file).
    ///
    /// # Errors
    /// A message naming the file that cannot be read or is not JSON, a `--resource` file that cannot be used or
    /// claims a URI another one claims, or a `--resource-dir` folder that cannot be read.
    pub(crate) fn open(path: &Path, flags: &SchemaFlags, command: &str) -> Result<Self, String> {
        let shown = path.display().to_string();
        let (text, file) = if path == Path::new("-") {
            (read_stdin()?, None)
        } else {
            let canonical = std::fs::canonicalize(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
            (read_file(path)?, Some(canonical))
        };
        let document: Value = oa_schema::parse_json(&text)
            .map_err(|e| format!("{shown}: the schema is not well-formed JSON: {e}"))?;
        let mut options = Validator::options()
            .default_draft(flags.draft)
            .defer_unresolved_references(true);
        let mut roots = Vec::new();
        let mut locations = LocationView::default();
        if let Some(file) = &file {
            let base = disk::file_uri(file)?;
            options = options.base_uri(&base);
            locations = LocationView { base: Some(base) };
            if let Some(folder) = file.parent() {
                roots.push(folder.to_path_buf());
            }
        }
        options = disk::register_files(options, &flags.resource, flags.draft)?;
        let catalog = disk::Catalog::index(&flags.resource_dir, flags.draft, command)?;
        roots.extend(catalog.roots().iter().cloned());
        options = options.retriever(Arc::new(disk::Retriever::new(roots, catalog)));
        Ok(Self {
            document,
            shown,
            options,
            draft: flags.draft,
            locations,
        })
    }

    /// How reports show the schema locations of this schema's violations.
    pub(crate) fn locations(&self) -> LocationView {
        self.locations.clone()
    }

    /// The schema as read.
    pub(crate) fn document(&self) -> &Value {
        &self.document
    }

    /// Options that find what the schema refers to, on top of `base`'s (`format_assertion`): its base URI, the
    /// retriever over its folder and the `--resource-dir` folders, the `--resource` files, `--draft`, and references
    /// that resolve to nothing deferred.
    pub(crate) fn options(&self) -> ValidatorOptions {
        self.options.clone()
    }

    /// Compiles the schema with [`options`](Self::options) and `format_assertion`.
    ///
    /// # Errors
    /// A message naming the schema and what is wrong with it, and the `--draft` that reads it when it declares no
    /// `$schema` and is valid as another draft.
    pub(crate) fn compile(&self, format_assertion: bool) -> Result<Validator, String> {
        self.options()
            .format_assertion(format_assertion)
            .build(self.document())
            .map_err(|e| {
                let hint = crate::hints::draft_hint(self.document(), self.draft).unwrap_or_default();
                format!("{}: invalid schema: {e}{hint}", self.shown())
            })
    }

    /// Where the schema was read from, as the user wrote it.
    pub(crate) fn shown(&self) -> &str {
        &self.shown
    }
}

/// Shows a violation's absolute schema location as the user laid the files out: in the schema file itself as
/// `#/…` (what reports printed before schema files had a base URI), in a file under the schema's folder by its
/// relative path (`address.json#/…`), anywhere else (an `$id`, a `--resource-dir` file elsewhere) as the full URI.
/// The full URI stays in `--output basic` (`absoluteKeywordLocation`).
#[derive(Clone, Debug, Default)]
pub(crate) struct LocationView {
    /// The schema file's `file://` URI (none for standard input).
    base: Option<String>,
}

impl LocationView {
    /// `absolute` as reports show it.
    pub(crate) fn show(&self, absolute: &str) -> String {
        let Some(base) = &self.base else {
            return absolute.to_owned();
        };
        if let Some(fragment) = absolute
            .strip_prefix(base.as_str())
            .filter(|rest| rest.starts_with('#'))
        {
            return fragment.to_owned();
        }
        let folder = &base[..base.rfind('/').map_or(0, |slash| slash + 1)];
        match absolute.strip_prefix(folder) {
            Some(relative) if !folder.is_empty() && !relative.is_empty() && !relative.starts_with('#') => {
                relative.to_owned()
            }
            _ => absolute.to_owned(),
        }
    }
}

/// A `--schema` of `oa complete` or `oa probe`: read as `oa validate` reads it (`--draft`, `--resource`,
/// `--resource-dir`, the file's URI as base, references that resolve to nothing deferred), checked as the call checks
/// it before anything is sent, and shared with the request (the provider compiles it once more, by these options).
#[derive(Debug)]
pub(crate) struct CallSchema {
    /// The schema as read.
    pub(crate) schema: Arc<Value>,
    /// The options that compile it: the request's schema options.
    pub(crate) options: Arc<ValidatorOptions>,
    /// The schema compiled here, for what the run is told about references that resolve to nothing.
    pub(crate) validator: Validator,
    /// Which references an answer reached.
    pub(crate) reached: Reached,
}

impl CallSchema {
    /// Reads and checks the `--schema` at `path` for `command`, warning (unless `!warn`) about misspelled keywords.
    ///
    /// # Errors
    /// A message naming the file and what is wrong: unreadable, not JSON, not a valid schema (with the `--draft` that
    /// reads it), or not a response schema (no object at its top).
    pub(crate) fn open(path: &Path, flags: &SchemaFlags, command: &str, warn: bool) -> Result<Self, String> {
        let source = SchemaSource::open(path, flags, command)?;
        if warn {
            crate::hints::warn_misspellings(command, source.document(), flags.draft);
        }
        let validator = source.compile(false)?;
        let schema = Arc::new(source.document().clone());
        let options = Arc::new(source.options());
        oa_provider::CompletionRequest::default()
            .with_response_schema(Arc::clone(&schema))
            .with_schema_options(Arc::clone(&options))
            .check_schema()
            .map_err(|error| format!("{}: {}", source.shown(), error.message()))?;
        Ok(Self {
            schema,
            options,
            validator,
            reached: Reached::default(),
        })
    }

    /// `request` with this schema and its options, fitted when `fit`.
    pub(crate) fn apply(
        &self,
        request: oa_provider::CompletionRequest,
        fit: bool,
    ) -> oa_provider::CompletionRequest {
        request
            .with_response_schema(Arc::clone(&self.schema))
            .with_schema_options(Arc::clone(&self.options))
            .with_fit(fit)
    }

    /// What a call's failure says about references that resolve to nothing: the input error when the answer reached
    /// one (`None` otherwise). Remembers them, so [`warn_unreached`](Self::warn_unreached) leaves them out.
    pub(crate) fn reached_unresolved(&self, error: &oa_provider::ProviderError) -> Option<String> {
        let violations = error.structured_output()?.violations()?;
        self.reached
            .note(violations)
            .then(|| unresolved_reached(&self.validator, violations))
            .flatten()
    }

    /// Warns, once each, about the references that resolve to nothing which no answer reached.
    pub(crate) fn warn_unreached(&self, command: &str) {
        self.reached.warn_unreached(&self.validator, command);
    }
}

/// Standard input's text.
fn read_stdin() -> Result<String, String> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
        .map(|_| text)
        .map_err(|e| format!("standard input: cannot read: {e}"))
}

/// A file's text (never standard input: `-` is a file named so here).
pub(crate) fn read_file(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))
}
