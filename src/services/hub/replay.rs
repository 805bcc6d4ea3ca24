//! What the tails of one log have read from the store, rendered, for the
//! next tail that needs the same events: watchers who arrive while a run
//! streams all read its log from the start, and a thousand of them would
//! otherwise each read and render the same pages.
//!
//! A replay is one run of consecutive frames, grown only at its end by
//! frames that follow it, and bounded ([`HELD_FRAMES`], [`HELD_BYTES`]) so
//! that a log costs its feed no more than its live frames do. A tail takes
//! from it what follows its position and reads the store for the rest.
//!
//! A tail has caught up when a read of the store that began after it
//! subscribed to the feed came back short: every event committed before it
//! subscribed was in that read, and every later one is sent to it live. Its
//! own read says so; so does a shared read whose end the replay holds
//! ([`End`]), for the tails that subscribed before that read began. What
//! the feed sent before a tail subscribed says nothing of the kind: events
//! committed before the feed existed were never sent.

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
    /// Where the newest shared read that came back short found the log's end.
    end: Option<End>,
}

/// The log's end as a read of the store found it: its newest `seq`, and
/// the ticket the read took before it began ([`super::feed::Feed::ticket`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct End {
    pub seq: u64,
    pub ticket: u64,
}

impl End {
    /// Whether a tail at `position` that subscribed with `ticket` has
    /// caught up: it stands at this end, and subscribed before the read.
    pub fn reached(&self, position: u64, ticket: u64) -> bool {
        self.seq == position && ticket < self.ticket
    }
}

impl Replay {
    /// Up to `limit` frames of the events after `after`, and where a short
    /// read found the log's end.
    pub fn after(&self, after: u64, limit: usize) -> (Vec<Frame>, Option<End>) {
        let Some(first) = self.frames.front().map(Frame::seq) else { return (Vec::new(), self.end) };
        if after + 1 < first {
            return (Vec::new(), None);
        }
        let skip = (after + 1 - first) as usize;
        (self.frames.iter().skip(skip).take(limit).cloned().collect(), self.end)
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

    /// Keeps `read`, the page after `after` that a read with `ticket` found,
    /// and where it found the log's end if it came back short (fewer than
    /// `page` frames) and the replay now ends there too.
    pub fn keep_read(&mut self, after: u64, read: &[Frame], page: usize, ticket: u64) {
        self.keep(read);
        let end = read.last().map_or(after, Frame::seq);
        let holds_end = self.frames.back().map_or(read.is_empty(), |last| last.seq() == end);
        if read.len() < page && holds_end {
            self.end = Some(End { seq: end, ticket });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::model::Event;

    impl Replay {
        fn after_frames(&self, after: u64, limit: usize) -> Vec<Frame> {
            self.after(after, limit).0
        }
    }

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
        assert!(replay.wants(0) && replay.after_frames(0, 10).is_empty());
        replay.keep(&(1..=3).map(|s| frame(s, "a")).collect::<Vec<_>>());
        assert!(replay.wants(3) && !replay.wants(2) && !replay.wants(5));
        replay.keep(&(3..=5).map(|s| frame(s, "b")).collect::<Vec<_>>());
        assert_eq!(seqs(&replay.after_frames(0, 10)), [1, 2, 3, 4, 5]);
        assert_eq!(seqs(&replay.after_frames(1, 2)), [2, 3]);
        assert_eq!(seqs(&replay.after_frames(5, 10)), Vec::<u64>::new());
        // A page that does not follow the end is not kept.
        replay.keep(&[frame(7, "c")]);
        assert_eq!(seqs(&replay.after_frames(4, 10)), [5]);
    }

    #[test]
    fn a_replay_that_starts_later_answers_nothing_before_it() {
        let mut replay = Replay::default();
        replay.keep(&(11..=12).map(|s| frame(s, "a")).collect::<Vec<_>>());
        assert!(replay.after_frames(0, 10).is_empty());
        assert!(replay.after_frames(9, 10).is_empty());
        assert_eq!(seqs(&replay.after_frames(10, 10)), [11, 12]);
    }

    #[test]
    fn a_replay_stops_growing_at_its_bounds() {
        let mut replay = Replay::default();
        let big = "x".repeat(HELD_BYTES / 4);
        replay.keep(&(1..=8).map(|s| frame(s, &big)).collect::<Vec<_>>());
        assert_eq!(seqs(&replay.after_frames(0, 10)), [1, 2, 3]);
        assert!(!replay.wants(3));
        let mut replay = Replay::default();
        replay.keep(&(1..=HELD_FRAMES as u64 + 5).map(|s| frame(s, "a")).collect::<Vec<_>>());
        assert_eq!(replay.after_frames(0, usize::MAX).len(), HELD_FRAMES);
        assert!(!replay.wants(HELD_FRAMES as u64));
    }

    #[test]
    fn a_short_read_marks_the_end_for_the_tails_that_subscribed_before_it() {
        let mut replay = Replay::default();
        replay.keep_read(0, &(1..=32).map(|s| frame(s, "a")).collect::<Vec<_>>(), 32, 5);
        assert_eq!(replay.after(0, 64).1, None, "a full page is no end");
        replay.keep_read(32, &(33..=40).map(|s| frame(s, "a")).collect::<Vec<_>>(), 32, 9);
        let (frames, end) = replay.after(32, 64);
        assert_eq!(seqs(&frames), (33..=40).collect::<Vec<_>>());
        let end = end.unwrap();
        assert_eq!(end, End { seq: 40, ticket: 9 });
        assert!(end.reached(40, 8) && !end.reached(40, 9) && !end.reached(40, 12) && !end.reached(39, 1));
        // A read of nothing at the end moves the mark to a later read.
        replay.keep_read(40, &[], 32, 14);
        assert_eq!(replay.after(40, 64).1, Some(End { seq: 40, ticket: 14 }));
        // An empty log read short: its end is where the read began.
        let mut empty = Replay::default();
        empty.keep_read(0, &[], 32, 3);
        let (frames, end) = empty.after(0, 32);
        assert!(frames.is_empty() && end == Some(End { seq: 0, ticket: 3 }));
    }

    #[test]
    fn a_read_the_replay_cannot_hold_whole_marks_no_end() {
        let mut replay = Replay::default();
        let big = "x".repeat(HELD_BYTES / 4);
        replay.keep_read(0, &(1..=8).map(|s| frame(s, &big)).collect::<Vec<_>>(), 32, 2);
        assert_eq!(replay.after(0, 64).1, None);
    }
}
