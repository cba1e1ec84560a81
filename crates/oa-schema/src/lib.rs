//! oa-schema: a JSON Schema draft 2020-12 validator that reports every violation at its JSON Pointer.
#![allow(dead_code)] // Skeleton: the support modules are wired in by the validator core.

mod ecma_regex;
mod equal;
mod format;
mod number;
