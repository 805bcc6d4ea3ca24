//! A log's live feed: the frames of its new events, rendered once and
//! shared by every tail of the log, and when to look at the log again if it
//! stays quiet.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{broadcast, watch};
use tokio::time::Instant;

use super::frame::Frame;
use super::replay::{End, Replay};
use super::tail::PAGE;
use crate::store::{Store, StoreResult};

/// How many frames a feed holds for tails that are behind: a tail further
/// behind reads the store instead.
pub const HELD: usize = 256;

/// The wakes a feed causes in a second, counted in tails woken: a log with
/// more tails than this sends its frames in batches, each tail woken (and
/// its socket written) once per batch rather than once per event…
const WAKES_PER_SECOND: u32 = 2500;

/// …and a batch waits at most this long (a few frames a second is what a
/// reader of a live answer needs; a log with few tails sends at once).
const LONGEST_BATCH: Duration = Duration::from_millis(400);

/// How long a log stays silent before its tails get a keep-alive (an SSE
/// comment), so that proxies keep their connections open.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The first look at a quiet log comes after this long without an event…
const FIRST_LOOK: Duration = Duration::from_secs(1);

/// …and the looks thin out, doubling, to one in this long.
const LAST_LOOK: Duration = Duration::from_secs(30);

/// What a feed sends its tails.
#[derive(Debug, Clone)]
pub enum Live {
    /// A new event of the log.
    Event(Frame),
    /// The log gets no more events (its owner ended, or is gone): a tail
    /// reads what is left of it in the store, then ends.
    Over,
    /// The log has been silent for [`KEEP_ALIVE`].
    Ping,
}

/// The live side of one log, in the JSON dialect that names it `id_key`.
pub struct Feed {
    log_id: String,
    id_key: &'static str,
    sender: broadcast::Sender<Live>,
    quiet: Mutex<Quiet>,
    outbox: Mutex<Outbox>,
    /// What its tails read from the store, for the tails that follow.
    replay: Mutex<Replay>,
    /// The read of the store that grows the replay, while it is made: the
    /// position it reads after, and its end.
    reading: Mutex<Option<(u64, watch::Receiver<bool>)>>,
    /// Tickets, in the order they were taken: by a tail once it has
    /// subscribed, by a shared read before it begins ([`End::reached`]).
    tickets: AtomicU64,
}

/// Frames on their way to the tails.
struct Outbox {
    /// Frames held for the next batch.
    held: Vec<Frame>,
    /// When the last batch went out.
    sent_at: Instant,
    /// A batch is due: its frames go out then.
    due: bool,
}

/// What a feed knows of its log between events.
struct Quiet {
    /// The newest seq sent or seen in the store.
    newest: u64,
    /// When to look at the log, if no event comes first.
    look_at: Instant,
    /// The wait before the look after that one.
    next_wait: Duration,
    /// When the tails get a keep-alive, if no event comes first.
    ping_at: Instant,
}

impl Feed {
    pub fn new(log_id: &str, id_key: &'static str) -> Feed {
        let now = Instant::now();
        let quiet =
            Quiet { newest: 0, look_at: now + FIRST_LOOK, next_wait: FIRST_LOOK * 2, ping_at: now + KEEP_ALIVE };
        let outbox = Outbox { held: Vec::new(), sent_at: Instant::now() - LONGEST_BATCH, due: false };
        Feed {
            log_id: log_id.to_string(),
            id_key,
            sender: broadcast::channel(HELD).0,
            quiet: Mutex::new(quiet),
            outbox: Mutex::new(outbox),
            replay: Mutex::new(Replay::default()),
            reading: Mutex::new(None),
            tickets: AtomicU64::new(0),
        }
    }

    /// Up to `limit` frames after `after` that tails read from the store,
    /// and where the newest shared read that came back short found the
    /// log's end.
    pub fn replayed(&self, after: u64, limit: usize) -> (Vec<Frame>, Option<End>) {
        self.replay.lock().expect("feed lock").after(after, limit)
    }

    /// The next ticket. Taken with sequential consistency, so that a ticket
    /// smaller than another was taken before it.
    fn ticket(&self) -> u64 {
        self.tickets.fetch_add(1, Ordering::SeqCst)
    }

    /// The page of the log after `after`, read from the store once for
    /// every tail that needs it, when other tails read the log and the
    /// replay would keep it: its read is started, or joined if it is under
    /// way, and the answer says when it has ended (kept in the replay, or
    /// failed: the tail then reads for itself). The read is a task of its
    /// own, so that it goes on whether or not the tail that started it is
    /// polled (a client that stopped reading holds nothing up). `None`: the
    /// tail reads for itself.
    pub fn read_shared(self: &Arc<Feed>, store: &Arc<dyn Store>, after: u64) -> Option<watch::Receiver<bool>> {
        if self.watchers() < 2 {
            return None;
        }
        let mut reading = self.reading.lock().expect("feed lock");
        if let Some((at, ended)) = &*reading {
            return (*at == after).then(|| ended.clone());
        }
        if !self.replay.lock().expect("feed lock").wants(after) {
            return None;
        }
        let (end, ended) = watch::channel(false);
        *reading = Some((after, ended.clone()));
        let (feed, store) = (self.clone(), store.clone());
        // Before the read begins: the tails whose tickets are smaller had
        // subscribed by then.
        let ticket = self.ticket();
        tokio::spawn(async move {
            if let Ok(frames) = feed.read_page(store.as_ref(), after).await {
                feed.replay.lock().expect("feed lock").keep_read(after, &frames, PAGE as usize, ticket);
            }
            *feed.reading.lock().expect("feed lock") = None;
            let _ = end.send(true);
        });
        Some(ended)
    }

    /// A page of the log after `after` read from the store and rendered.
    pub async fn read_page(&self, store: &dyn Store, after: u64) -> StoreResult<Vec<Frame>> {
        let page = store.read_events(&self.log_id, after, PAGE).await?;
        crate::metrics::tail_page_read(false);
        if let Some(newest) = page.last() {
            self.saw(newest.seq);
        }
        Ok(page.iter().map(|event| Frame::render(event, self.id_key)).collect())
    }

    pub fn log_id(&self) -> &str {
        &self.log_id
    }

    pub fn id_key(&self) -> &'static str {
        self.id_key
    }

    /// A new tail's receiver of the live frames, and its ticket, taken
    /// once it receives them.
    pub fn subscribe(&self) -> (broadcast::Receiver<Live>, u64) {
        let live = self.sender.subscribe();
        (live, self.ticket())
    }

    /// The tails reading the feed.
    pub fn watchers(&self) -> usize {
        self.sender.receiver_count()
    }

    /// Sends a new event's frame to every tail (the log is not quiet): at
    /// once, or in the batch that is due, or in one due after the last
    /// batch by as long as the tails' number asks ([`WAKES_PER_SECOND`]).
    pub fn send(self: &Arc<Feed>, frame: Frame) {
        let mut quiet = self.quiet.lock().expect("feed lock");
        quiet.newest = quiet.newest.max(frame.seq());
        let now = Instant::now();
        quiet.look_at = now + FIRST_LOOK;
        quiet.next_wait = FIRST_LOOK * 2;
        quiet.ping_at = now + KEEP_ALIVE;
        drop(quiet);
        let mut outbox = self.outbox.lock().expect("feed lock");
        outbox.held.push(frame);
        if outbox.due {
            return;
        }
        let send_at = outbox.sent_at + self.batch_time();
        if send_at <= Instant::now() {
            self.send_held(&mut outbox);
            return;
        }
        outbox.due = true;
        let feed = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep_until(send_at).await;
            let mut outbox = feed.outbox.lock().expect("feed lock");
            feed.send_held(&mut outbox);
        });
    }

    /// Tells every tail, after any frames held, that the log is over.
    pub fn send_over(&self) {
        let mut outbox = self.outbox.lock().expect("feed lock");
        self.send_held(&mut outbox);
        let _ = self.sender.send(Live::Over);
    }

    /// Sends a keep-alive if the log has been silent for [`KEEP_ALIVE`].
    pub fn ping_if_silent(&self, now: Instant) {
        let mut quiet = self.quiet.lock().expect("feed lock");
        if quiet.ping_at > now {
            return;
        }
        quiet.ping_at = now + KEEP_ALIVE;
        drop(quiet);
        let _ = self.sender.send(Live::Ping);
    }

    fn send_held(&self, outbox: &mut Outbox) {
        for frame in outbox.held.drain(..) {
            let _ = self.sender.send(Live::Event(frame));
        }
        outbox.sent_at = Instant::now();
        outbox.due = false;
    }

    /// The least time between two batches: none for a few tails, up to
    /// [`LONGEST_BATCH`] for many.
    fn batch_time(&self) -> Duration {
        (Duration::from_secs(1) * self.watchers() as u32 / WAKES_PER_SECOND).min(LONGEST_BATCH)
    }

    /// A tail read the log up to `seq`.
    pub fn saw(&self, seq: u64) {
        let mut quiet = self.quiet.lock().expect("feed lock");
        quiet.newest = quiet.newest.max(seq);
    }

    /// If the log has been quiet long enough to look at it again, the
    /// newest seq known (the look reads after it), and the next look put off.
    pub fn due(&self, now: Instant) -> Option<u64> {
        let mut quiet = self.quiet.lock().expect("feed lock");
        if quiet.look_at > now {
            return None;
        }
        quiet.look_at = now + quiet.next_wait;
        quiet.next_wait = (quiet.next_wait * 2).min(LAST_LOOK);
        Some(quiet.newest)
    }
}
