//! The last violation's paths, kept for the next: a run's violations come in bursts from one place (the items of
//! one array, the members of one union), whose frame chains share all but the last step or two, so a new violation
//! rebuilds its instance location and keyword path only from the frame where its chain leaves the last one's.
//!
//! A frame is known by its address and by how many violations the run had recorded when it was made (its
//! `born`): an address alone could be another frame's, made there after the one the paths were built for was gone.
//! Two frames alive at once have different addresses, and a frame is alive from its birth to its return. So a
//! frame at the address kept for violation `k` is the one kept exactly when it was born no later than `k` was
//! recorded: if it is the one, it was alive then; if it is another, the kept one was gone before it was made, so
//! it was born after `k` was recorded (the count only grows during a run: nothing removes a recorded
//! violation, unions probe in flag mode). This costs each frame one store of a count the run already keeps, where a
//! frame serial would cost an increment too. Frames of one run only (a detached frame, born `usize::MAX`, never
//! matches).
//!
//! The frames of a way (`Evaluator::within`: the collecting pass's evaluations, each started afresh at some place
//! of the instance) are made anew for every evaluation, so by the rule above none would match the last one's. Their
//! caller knows them by another name: a frame of its own way (one step into the instance and the schema), which
//! stays what it is from the step in to the step out and serves every evaluation started below it meanwhile. It
//! stamps that frame at its first evaluation with the count recorded then, marked with [`STAMPED`], and each frame
//! made for it carries that stamp as its `born`. A stamped frame matches the paths kept at its depth for violation
//! `k` when its stamp is no later than `k`, whatever their frame's address: `k` was then recorded while the caller's
//! frame was on its way, and every evaluation started meanwhile had a frame made for it at that depth (their way's
//! frames are the shallowest of an evaluation; only the first violation of a run keeps no paths), so the paths were
//! built through the same steps and keyword path segments as this frame's. The mark is the highest bit: a run's
//! count never reaches it (a violation takes more than two bytes), so an unstamped frame is never taken for a stamped
//! one, and `usize::MAX` (detached) never matches, since no count reaches it with the bit cleared either.

use super::{Frame, Step};
use oa_pointer::{Location, Segment};
use std::cell::Cell;

/// The most bytes either path, or the steps' list, may have held for the buffers to be kept for the next run (see
/// [`SPARE_PATHS`]): a deep or long path is rare, and its buffers are freed rather than held by the thread.
const KEPT_MAX_BYTES: usize = 4096;

/// The mark of a stamped frame's `born` (see the module docs).
pub(crate) const STAMPED: usize = 1 << (usize::BITS - 1);

thread_local! {
    /// The buffers between runs on this thread, emptied: a report of a few violations then does not allocate and
    /// grow three buffers of its own before its second violation.
    static SPARE_PATHS: Cell<Option<Box<Paths>>> = const { Cell::new(None) };
}

/// The paths up to the frame of the last violation (or annotation) built, with where each frame's steps end.
#[derive(Debug)]
pub(super) struct Paths {
    location: Location,
    keyword_path: String,
    /// Per chain depth (a frame's `depth`): that frame and the lengths of both paths after its steps.
    ends: Vec<StepEnd>,
    /// The longest instance location built (its buffer's size, which [`Location`] does not tell).
    longest_location: usize,
}

#[derive(Debug, Clone, Copy)]
struct StepEnd {
    /// The frame's address (0 for none: the depths above a chain that starts below the root).
    frame: usize,
    /// The violation whose paths first went through it: the number recorded before it.
    recorded: usize,
    location: usize,
    keyword_path: usize,
}

impl Paths {
    /// The buffers the last run on this thread left (see [`SPARE_PATHS`]), or new ones with room for usual paths.
    #[cold]
    #[inline(never)]
    pub(super) fn adopt() -> Box<Self> {
        match SPARE_PATHS.try_with(Cell::take) {
            Ok(Some(spare)) => spare,
            _ => Box::new(Self {
                location: Location::with_capacity(64),
                keyword_path: String::with_capacity(128),
                ends: Vec::with_capacity(16),
                longest_location: 0,
            }),
        }
    }

    /// Leaves the buffers, emptied, to the next run on this thread, unless they grew past [`KEPT_MAX_BYTES`]. The
    /// steps must go: the next run numbers its frames from the start again.
    pub(super) fn give_back(mut self: Box<Self>) {
        if self.longest_location > KEPT_MAX_BYTES
            || self.keyword_path.capacity() > KEPT_MAX_BYTES
            || self.ends.capacity() * std::mem::size_of::<StepEnd>() > KEPT_MAX_BYTES
        {
            return;
        }
        self.ends.clear();
        // After the thread's locals are gone (a run during thread exit) the buffers are simply freed.
        let _ = SPARE_PATHS.try_with(|cell| cell.set(Some(self)));
    }

    /// Brings both paths to `frame`'s: back to the deepest frame it shares with the chain built last, then its own
    /// steps from there. Recursion as deep as the part of the chain not shared, which [`super::MAX_DEPTH`] bounds
    /// (and which the evaluation that built it already went through).
    /// `recorded`: how many violations the run has recorded (the new one's index).
    pub(super) fn reach(&mut self, frame: &Frame<'_, '_>, recorded: usize) {
        let depth = frame.depth as usize;
        let address = std::ptr::from_ref(frame) as usize;
        if let Some(end) = self.ends.get(depth)
            && ((end.frame == address && frame.born <= end.recorded)
                || (frame.born & STAMPED != 0 && frame.born & !STAMPED <= end.recorded))
        {
            let (location, keyword_path) = (end.location, end.keyword_path);
            self.location.truncate(location);
            self.keyword_path.truncate(keyword_path);
            self.ends.truncate(depth + 1);
            return;
        }
        match frame.parent {
            Some(parent) => self.reach(parent, recorded),
            None => {
                // Emptied in place, keeping the buffers.
                self.location.truncate(0);
                self.keyword_path.clear();
                self.ends.clear();
            }
        }
        match frame.step {
            Some(Step::Key(key)) => self.location.push_key(key),
            Some(Step::Index(idx)) => self.location.push_index(idx),
            None => {}
        }
        self.keyword_path.push_str(frame.schema_step);
        if self.ends.len() != depth {
            // A chain that starts below the root (a detached frame) leaves the depths above it unmatched.
            self.ends.resize(
                depth,
                StepEnd {
                    frame: 0,
                    recorded: 0,
                    location: 0,
                    keyword_path: 0,
                },
            );
        }
        self.ends.push(StepEnd {
            frame: address,
            recorded,
            location: self.location.as_str().len(),
            keyword_path: self.keyword_path.len(),
        });
    }

    /// A copy of the instance location reached, of its exact size, with `extra` appended if given.
    #[inline]
    pub(super) fn location(&mut self, extra: Option<Segment<'_>>) -> Location {
        let end = self.location.as_str().len();
        let Some(extra) = extra else {
            self.longest_location = self.longest_location.max(end);
            return self.location.clone();
        };
        self.location.push(extra);
        self.longest_location = self.longest_location.max(self.location.as_str().len());
        let location = self.location.clone();
        self.location.truncate(end);
        location
    }

    /// The keyword path reached.
    pub(super) fn keyword_path(&self) -> &str {
        &self.keyword_path
    }
}
