//! Concurrency keys' slots: which of a claim's candidates start, and which
//! are held until their key has a free slot.
//!
//! A key's slots are counted from the runs of the key that are `running`,
//! read when a claim decides, so nothing is kept that could drift: a run
//! that waits for a person or a client is not running and has given its
//! slot back, and a run whose worker died keeps its slot until it is
//! rescued or ends. A held run leaves the ready index, so later claims do
//! not walk past it again; each claim first gives a held key's runs as many
//! places back as the key has free slots ([`free_slots`]).

use std::collections::HashMap;

/// How many times a claim picks again after holding runs, so that a queue
/// whose best runs all belong to full keys still starts what else it has:
/// each store's pick reads the best runs, sorts them ([`Taken::sort`]),
/// holds what must wait, and reads on past them.
pub const MAX_ROUNDS: usize = 8;

/// A queued run at the head of its session that a claim considers, best
/// first (the highest priority, then the oldest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Its place in the queue, which names it to the claim's update.
    pub queue_seq: i64,
    /// Its concurrency key and limit, if it has one.
    pub key: Option<(String, u32)>,
}

/// What a claim does with its candidates.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Sorted {
    /// The runs it starts, best first.
    pub start: Vec<i64>,
    /// The runs it holds, with their key and limit: the key is at its limit.
    pub hold: Vec<(i64, String, u32)>,
}

impl Sorted {
    /// The keys of the held runs, each once with the limit of its first
    /// held run: each is at its limit, so the store holds every ready run
    /// of it that this claim does not start, not only those it read.
    pub fn full_keys(&self) -> Vec<(&str, u32)> {
        let mut keys: Vec<(&str, u32)> = Vec::new();
        for (_, key, limit) in &self.hold {
            if !keys.iter().any(|(seen, _)| seen == key) {
                keys.push((key, *limit));
            }
        }
        keys
    }
}

/// The slots a claim has counted and taken so far, by key: each key's
/// running runs as first read, plus the runs this claim started. It lives
/// for the whole claim, across its rounds, since the runs it started are
/// not `running` until its update.
#[derive(Debug, Default)]
pub struct Taken(HashMap<String, u32>);

impl Taken {
    /// The keys of `candidates` whose running runs are not counted yet.
    pub fn uncounted(&self, candidates: &[Candidate]) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for (key, _) in candidates.iter().filter_map(|c| c.key.as_ref()) {
            if !self.0.contains_key(key) && !keys.contains(key) {
                keys.push(key.clone());
            }
        }
        keys
    }

    /// Sorts `candidates` (best first) into at most `room` that start and
    /// those held: a keyed run starts while its key's running runs
    /// (`running(key)`, asked once per key per claim) and the ones this
    /// claim started stay under its limit. Candidates after the room is
    /// full are left as they are.
    pub fn sort<E>(
        &mut self,
        candidates: Vec<Candidate>,
        room: usize,
        mut running: impl FnMut(&str) -> Result<u32, E>,
    ) -> Result<Sorted, E> {
        let mut sorted = Sorted::default();
        for candidate in candidates {
            if sorted.start.len() == room {
                break;
            }
            let Some((key, limit)) = candidate.key else {
                sorted.start.push(candidate.queue_seq);
                continue;
            };
            let taken = match self.0.get_mut(&key) {
                Some(taken) => taken,
                None => self.0.entry(key.clone()).or_insert(running(&key)?),
            };
            if *taken < limit {
                *taken += 1;
                sorted.start.push(candidate.queue_seq);
            } else {
                sorted.hold.push((candidate.queue_seq, key, limit));
            }
        }
        Ok(sorted)
    }
}

/// How many of a key's held runs go back to the ready index: its free
/// slots, less the runs of the key already there waiting for a claim.
pub fn free_slots(limit: u32, running: u32, ready: u32) -> u32 {
    limit.saturating_sub(running.saturating_add(ready))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keyed(queue_seq: i64, key: &str, limit: u32) -> Candidate {
        Candidate { queue_seq, key: Some((key.into(), limit)) }
    }

    #[test]
    fn a_key_at_its_limit_is_held_and_the_rest_start_in_order() {
        let candidates = vec![
            keyed(1, "a", 2),
            keyed(2, "a", 2),
            Candidate { queue_seq: 3, key: None },
            keyed(4, "b", 1),
            keyed(5, "b", 1),
            keyed(6, "a", 2),
        ];
        let mut asked = Vec::new();
        let running = |key: &str| {
            asked.push(key.to_string());
            Ok::<_, ()>(if key == "a" { 1 } else { 0 })
        };
        let sorted = Taken::default().sort(candidates, 10, running).unwrap();
        assert_eq!(sorted.start, [1, 3, 4], "one slot of a is free, one of b");
        let held: Vec<i64> = sorted.hold.iter().map(|h| h.0).collect();
        assert_eq!(held, [2, 5, 6]);
        assert_eq!(sorted.full_keys(), [("a", 2), ("b", 1)], "each full key once, in the order met");
        assert_eq!(asked, ["a", "b"], "each key's running runs read once");
    }

    #[test]
    fn the_room_bounds_what_starts_and_what_follows_is_left_alone() {
        let candidates = vec![keyed(1, "a", 1), keyed(2, "a", 1), Candidate { queue_seq: 3, key: None }];
        let sorted = Taken::default().sort(candidates.clone(), 1, |_| Ok::<_, ()>(0)).unwrap();
        assert_eq!((sorted.start, sorted.hold), (vec![1], vec![]));
        let sorted = Taken::default().sort(candidates, 5, |_| Ok::<_, ()>(1)).unwrap();
        assert_eq!(sorted.start, [3], "a full key's runs are held, the unkeyed one starts");
        assert_eq!(sorted.hold.len(), 2);
        assert_eq!(Taken::default().sort(vec![keyed(1, "a", 1)], 1, |_| Err("down")), Err("down"));
    }

    #[test]
    fn what_a_claim_started_counts_in_its_later_rounds() {
        let mut taken = Taken::default();
        let first = taken.sort(vec![keyed(1, "a", 2)], 1, |_| Ok::<_, ()>(0)).unwrap();
        assert_eq!(first.start, [1]);
        assert_eq!(taken.uncounted(&[keyed(2, "a", 2), keyed(3, "b", 1), keyed(4, "b", 1)]), ["b"]);
        let second = taken.sort(vec![keyed(2, "a", 2), keyed(3, "a", 2)], 5, |_| Ok::<_, ()>(0)).unwrap();
        assert_eq!((second.start, second.hold.len()), (vec![2], 1), "two of a in all, not three");
    }

    #[test]
    fn held_runs_go_back_only_into_free_slots_not_already_claimable() {
        assert_eq!(free_slots(3, 1, 0), 2);
        assert_eq!(free_slots(3, 1, 1), 1);
        assert_eq!(free_slots(2, 2, 0), 0);
        assert_eq!(free_slots(2, 3, 0), 0, "a lowered limit frees nothing until enough end");
    }
}
