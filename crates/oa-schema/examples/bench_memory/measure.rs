//! The measurement behind `bench_memory`: the parent that builds the rows and judges the bound, and the child that
//! measures one row in a process of its own. Shared with `tests/memory.rs`; the method is described in
//! `examples/bench_memory.rs`.

use crate::llm;
use crate::tools::{self, Compiled, Tool};
use crate::workloads::{self, Workload};
use serde_json::{Value, json};
use std::hint::black_box;
use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};

/// The bound: extra memory at most this many times the schema and instance bytes together.
pub(crate) const BOUND_FACTOR: u64 = 10;

/// The name of the reference row (see `parent::floor`).
const FLOOR: &str = "empty schema {}";

/// How far (KiB) `VmHWM` may stay above `VmRSS` right after a reset (see `reset_peak`).
const RESET_SLACK_KIB: u64 = 64;

/// The glibc settings given to children (see the module docs); `--plain-malloc` turns them off.
const MALLOC_TUNABLES: &str = "glibc.malloc.trim_threshold=0:glibc.malloc.top_pad=0";

/// A measured operation; the names are those of the benchmark's rows (`validate` is its "errors").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// Build the validators of every schema of the workload.
    Compile,
    /// The cheap question on every instance of a set.
    IsValid,
    /// Full error collection on every instance of a set (oa-schema's `validate`, jsonschema's `iter_errors`,
    /// boon's error tree).
    Validate,
}

impl Op {
    /// The name on the command line and in the table.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Op::Compile => "compile",
            Op::IsValid => "is_valid",
            Op::Validate => "validate",
        }
    }

    /// The inverse of [`Op::name`].
    fn from_name(name: &str) -> Option<Op> {
        [Op::Compile, Op::IsValid, Op::Validate]
            .into_iter()
            .find(|op| op.name() == name)
    }
}

pub(crate) mod child;
pub(crate) mod parent;
