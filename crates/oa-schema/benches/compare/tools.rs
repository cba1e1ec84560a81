//! The three validators behind one small interface: compile, ask `is_valid`, collect every error.
//!
//! Each tool is driven through its public API only, configured alike: the schema's draft (2020-12 for every workload
//! but SchemaStore's, whose schemas declare theirs), no network or file resolution, `format` asserting only where
//! the workload asks for it (the keyword micro cases, SchemaStore).

use oa_schema::Draft;

use serde_json::Value;

/// A validator under comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tool {
    /// This crate.
    OaSchema,
    /// jsonschema-rs (Stranger6667/jsonschema), the fastest peer.
    Jsonschema,
    /// boon (santhosh-tekuri/boon), the most faithful peer.
    Boon,
}

impl Tool {
    /// Every tool, ours first; criterion function ids and the report use these names.
    pub(crate) const ALL: [Tool; 3] = [Tool::OaSchema, Tool::Jsonschema, Tool::Boon];

    /// The name used as the criterion function id.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Tool::OaSchema => "oa-schema",
            Tool::Jsonschema => "jsonschema",
            Tool::Boon => "boon",
        }
    }
}

/// The URL under which boon is given each in-memory schema document (nothing is fetched: boon is built without
/// its HTTP loader, and this document is registered before compiling).
const BOON_SCHEMA_URL: &str = "http://localhost/oa-bench/schema.json";

/// A schema compiled by one of the tools.
pub(crate) enum Compiled {
    /// oa-schema's compiled validator.
    OaSchema(oa_schema::Validator),
    /// jsonschema's compiled validator.
    Jsonschema(jsonschema::Validator),
    /// boon's schema collection and the index of the root schema in it; the compiler is kept so that its drop
    /// happens outside the measured compile, as for the other tools.
    Boon(boon::Schemas, boon::SchemaIndex),
}

/// Compiles `schema`, of `draft`, with `tool`. boon takes ownership of the document, so it gets a clone here; the
/// compile benchmark clones outside the timed region instead (see [`compile_owned`]).
pub(crate) fn compile(
    tool: Tool,
    schema: &Value,
    draft: Draft,
    format_assertion: bool,
) -> Result<Compiled, String> {
    match tool {
        Tool::OaSchema => compile_oa(schema, draft, format_assertion),
        Tool::Jsonschema => compile_jsonschema(schema, draft, format_assertion),
        Tool::Boon => compile_boon(schema.clone(), draft, format_assertion),
    }
}

/// Compiles an owned document (for boon, which takes ownership); the other tools borrow it.
pub(crate) fn compile_owned(
    tool: Tool,
    schema: Value,
    draft: Draft,
    format_assertion: bool,
) -> Result<Compiled, String> {
    match tool {
        Tool::Boon => compile_boon(schema, draft, format_assertion),
        _ => compile(tool, &schema, draft, format_assertion),
    }
}

/// Compiles with oa-schema, `draft` for a schema without `$schema` (the workloads' schemas declare no other).
pub(crate) fn compile_oa(schema: &Value, draft: Draft, format_assertion: bool) -> Result<Compiled, String> {
    oa_schema::Validator::options()
        .format_assertion(format_assertion)
        .default_draft(draft)
        .build(schema)
        .map(Compiled::OaSchema)
        .map_err(|err| err.to_string())
}

/// Compiles with jsonschema, pinned to `draft`.
pub(crate) fn compile_jsonschema(
    schema: &Value,
    draft: Draft,
    format_assertion: bool,
) -> Result<Compiled, String> {
    let draft = match draft {
        Draft::Draft4 => jsonschema::Draft::Draft4,
        Draft::Draft6 => jsonschema::Draft::Draft6,
        Draft::Draft7 => jsonschema::Draft::Draft7,
        Draft::Draft201909 => jsonschema::Draft::Draft201909,
        _ => jsonschema::Draft::Draft202012,
    };
    jsonschema::options()
        .with_draft(draft)
        .should_validate_formats(format_assertion)
        .build(schema)
        .map(Compiled::Jsonschema)
        .map_err(|err| err.to_string())
}

/// Compiles with boon, `draft` for documents without `$schema`.
pub(crate) fn compile_boon(schema: Value, draft: Draft, format_assertion: bool) -> Result<Compiled, String> {
    let mut compiler = boon::Compiler::new();
    compiler.set_default_draft(match draft {
        Draft::Draft4 => boon::Draft::V4,
        Draft::Draft6 => boon::Draft::V6,
        Draft::Draft7 => boon::Draft::V7,
        Draft::Draft201909 => boon::Draft::V2019_09,
        _ => boon::Draft::V2020_12,
    });
    if format_assertion {
        compiler.enable_format_assertions();
    }
    let mut schemas = boon::Schemas::new();
    compiler
        .add_resource(BOON_SCHEMA_URL, schema)
        .map_err(|err| format!("{err:#}"))?;
    let index = compiler
        .compile(BOON_SCHEMA_URL, &mut schemas)
        .map_err(|err| format!("{err:#}"))?;
    Ok(Compiled::Boon(schemas, index))
}

impl Compiled {
    /// The cheap question. boon has no boolean entry point, so for boon this is `validate(..).is_ok()`.
    pub(crate) fn is_valid(&self, instance: &Value) -> bool {
        match self {
            Compiled::OaSchema(validator) => validator.is_valid(instance),
            Compiled::Jsonschema(validator) => validator.is_valid(instance),
            Compiled::Boon(schemas, index) => schemas.validate(instance, *index).is_ok(),
        }
    }

    /// Full error collection, counted: oa-schema's `validate` (every violation), jsonschema's `iter_errors`
    /// (drained), boon's `validate` error tree (walked, counting leaves).
    pub(crate) fn count_errors(&self, instance: &Value) -> usize {
        match self {
            Compiled::OaSchema(validator) => match validator.validate(instance) {
                Ok(()) => 0,
                Err(violations) => violations.iter().count(),
            },
            Compiled::Jsonschema(validator) => validator.iter_errors(instance).count(),
            Compiled::Boon(schemas, index) => match schemas.validate(instance, *index) {
                Ok(()) => 0,
                Err(error) => count_leaves(&error),
            },
        }
    }
}

/// Counts the leaves of boon's error tree (an error with no causes is one reported violation).
fn count_leaves(error: &boon::ValidationError<'_, '_>) -> usize {
    if error.causes.is_empty() {
        1
    } else {
        error.causes.iter().map(count_leaves).sum()
    }
}
