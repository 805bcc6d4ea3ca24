//! What the tails of one log have read from the store, rendered, for the
//! next tail that needs the same events: watchers who arrive while a run
//! streams all read its log from the start, and a thousand of them would
//! otherwise each read and render the same pages.
//!
//! A replay is one run of consecutive frames, grown only at its end by
//! frames that follow it, and bounded ([`HELD_FRAMES`], [`HELD_BYTES`]) so
//! that a log costs its feed no more than its live frames do. A tail takes
//! from it what follows its position and reads the store for the rest; only
//! its own read of the store, coming back short, tells it has caught up.

use std::collections::VecDeque;

use super::frame::Frame;

/// The most frames a replay holds (the feed holds as many live ones).
pub const HELD_FRAMES: usize = super::feed::HELD;

/// The most bytes of frames a replay holds.
pub const HELD_BYTES: usize = 256 * 1024;

/// Frames of consecutive events, in order.
#[derive(Default)]
pub struct Replay {
    frames: VecDeque<Frame>,
    bytes: usize,
    /// A frame that followed did not fit: the replay grows no more.
    full: bool,
}

impl Replay {
    /// Up to `limit` frames of the events after `after`.
    pub fn after(&self, after: u64, limit: usize) -> Vec<Frame> {
        let Some(first) = self.frames.front().map(Frame::seq) else { return Vec::new() };
        if after + 1 < first {
            return Vec::new();
        }
        let skip = (after + 1 - first) as usize;
        self.frames.iter().skip(skip).take(limit).cloned().collect()
    }

    /// Whether a read of the store after `after` would grow the replay:
    /// it is empty, or ends there, and has not refused a frame for want of
    /// room.
    pub fn wants(&self, after: u64) -> bool {
        !self.full && self.frames.back().is_none_or(|last| last.seq() == after)
    }

    /// Keeps `read`, a page of the store's frames in order, as far as it
    /// follows the replay's end without a gap and fits.
    pub fn keep(&mut self, read: &[Frame]) {
        for frame in read {
            if self.frames.back().is_some_and(|last| frame.seq() != last.seq() + 1) {
                continue;
            }
            if self.frames.len() >= HELD_FRAMES || self.bytes + frame.size() > HELD_BYTES {
                self.full = true;
                return;
            }
            self.bytes += frame.size();
            self.frames.push_back(frame.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::model::Event;

    fn frame(seq: u64, text: &str) -> Frame {
        let data = serde_json::json!({"text": text}).as_object().cloned().unwrap();
        Frame::render(
            &Event { run_id: "r".into(), seq, kind: "text_delta".into(), data, at: chrono::Utc::now() },
            "run_id",
        )
    }

    fn seqs(frames: &[Frame]) -> Vec<u64> {
        frames.iter().map(Frame::seq).collect()
    }

    #[test]
    fn a_replay_answers_what_follows_a_position_from_the_frames_it_kept() {
        let mut replay = Replay::default();
        assert!(replay.wants(0) && replay.after(0, 10).is_empty());
        replay.keep(&(1..=3).map(|s| frame(s, "a")).collect::<Vec<_>>());
        assert!(replay.wants(3) && !replay.wants(2) && !replay.wants(5));
        replay.keep(&(3..=5).map(|s| frame(s, "b")).collect::<Vec<_>>());
        assert_eq!(seqs(&replay.after(0, 10)), [1, 2, 3, 4, 5]);
        assert_eq!(seqs(&replay.after(1, 2)), [2, 3]);
        assert_eq!(seqs(&replay.after(5, 10)), Vec::<u64>::new());
        // A page that does not follow the end is not kept.
        replay.keep(&[frame(7, "c")]);
        assert_eq!(seqs(&replay.after(4, 10)), [5]);
    }

    #[test]
    fn a_replay_that_starts_later_answers_nothing_before_it() {
        let mut replay = Replay::default();
        replay.keep(&(11..=12).map(|s| frame(s, "a")).collect::<Vec<_>>());
        assert!(replay.after(0, 10).is_empty());
        assert!(replay.after(9, 10).is_empty());
        assert_eq!(seqs(&replay.after(10, 10)), [11, 12]);
    }

    #[test]
    fn a_replay_stops_growing_at_its_bounds() {
        let mut replay = Replay::default();
        let big = "x".repeat(HELD_BYTES / 4);
        replay.keep(&(1..=8).map(|s| frame(s, &big)).collect::<Vec<_>>());
        assert_eq!(seqs(&replay.after(0, 10)), [1, 2, 3]);
        assert!(!replay.wants(3));
        let mut replay = Replay::default();
        replay.keep(&(1..=HELD_FRAMES as u64 + 5).map(|s| frame(s, "a")).collect::<Vec<_>>());
        assert_eq!(replay.after(0, usize::MAX).len(), HELD_FRAMES);
        assert!(!replay.wants(HELD_FRAMES as u64));
    }
}
