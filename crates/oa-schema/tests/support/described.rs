//! A report as lines that name each violation's instance location, keyword, absolute schema location and message,
//! for tests that compare two routes' reports violation by violation.

/// One line per violation, in the report's order.
pub(crate) fn described(violations: &oa_schema::Violations) -> Vec<String> {
    violations
        .iter()
        .map(|violation| {
            format!(
                "{} {:?} {} {}",
                violation.instance_location().to_fragment(),
                violation.keyword(),
                violation.schema_location().absolute(),
                violation.message(),
            )
        })
        .collect()
}
