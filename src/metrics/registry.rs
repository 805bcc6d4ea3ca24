//! A small registry of counters and histograms, and the Prometheus text
//! exposition format (version 0.0.4) they are rendered in.
//!
//! Every family is declared once as a `static` [`Family`] (name, help, type,
//! label names, buckets); the registry keeps one value per family and label
//! values. Values sit behind one mutex: a process records a few samples per
//! step of a run, far too few for the lock to matter, and a scrape sees every
//! family at one instant. A sample whose label values do not match its
//! family's names is refused, in every build, and the family's first such
//! sample logged as an error: written, it would pair names and values wrongly
//! or drop some, and a metric is never worth stopping a process for.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::sync::Mutex;

/// What a family measures, as its `# TYPE` line says.
#[derive(Debug)]
pub enum Kind {
    /// A total that only grows (reset only by a restart).
    Counter,
    /// A value read when scraped.
    Gauge,
    /// Observations counted into cumulative buckets, with these upper bounds
    /// (ascending; `+Inf` is added).
    Histogram(&'static [f64]),
}

/// A metric family: its name, what it means and how its series are labelled.
#[derive(Debug)]
pub struct Family {
    pub name: &'static str,
    pub help: &'static str,
    pub kind: Kind,
    pub labels: &'static [&'static str],
}

impl Family {
    fn type_name(&self) -> &'static str {
        match self.kind {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Histogram(_) => "histogram",
        }
    }
}

/// One series' value.
#[derive(Debug, Clone)]
enum Value {
    Number(f64),
    /// Per-bucket (not cumulative) counts, one more than the bounds for `+Inf`.
    Histogram {
        buckets: Vec<u64>,
        sum: f64,
        count: u64,
    },
}

/// Series keyed by family name and label values.
type Series = BTreeMap<(&'static str, Vec<String>), Value>;

/// What the registry's mutex guards.
#[derive(Debug, Default)]
struct State {
    series: Series,
    /// Families a sample was refused for, so that each is logged once.
    refused: BTreeSet<&'static str>,
}

/// The values of every series recorded in a process.
#[derive(Debug, Default)]
pub struct Registry {
    state: Mutex<State>,
}

impl Registry {
    /// An empty registry (usable in a `static`).
    pub const fn new() -> Registry {
        Registry { state: Mutex::new(State { series: BTreeMap::new(), refused: BTreeSet::new() }) }
    }

    /// Adds `amount` to a counter (or a gauge).
    pub fn add(&self, family: &'static Family, labels: &[&str], amount: f64) {
        self.update(family, labels, |value| {
            if let Value::Number(n) = value {
                *n += amount;
            }
        });
    }

    /// Counts an observation into a histogram's buckets.
    pub fn observe(&self, family: &'static Family, labels: &[&str], observed: f64) {
        let Kind::Histogram(bounds) = family.kind else { return };
        let bucket = bounds.iter().position(|bound| observed <= *bound).unwrap_or(bounds.len());
        self.update(family, labels, |value| {
            if let Value::Histogram { buckets, sum, count } = value {
                buckets[bucket] += 1;
                *sum += observed;
                *count += 1;
            }
        });
    }

    fn update(&self, family: &'static Family, labels: &[&str], change: impl FnOnce(&mut Value)) {
        let mut state = self.lock();
        if labels.len() != family.labels.len() {
            let first = state.refused.insert(family.name);
            drop(state);
            if first {
                tracing::error!(
                    family = family.name,
                    expected = family.labels.len(),
                    given = labels.len(),
                    "a metric sample with the wrong number of label values was refused (logged once per family)"
                );
            }
            return;
        }
        let key = (family.name, labels.iter().map(|l| l.to_string()).collect());
        let value = state.series.entry(key).or_insert_with(|| match family.kind {
            Kind::Histogram(bounds) => Value::Histogram { buckets: vec![0; bounds.len() + 1], sum: 0.0, count: 0 },
            Kind::Counter | Kind::Gauge => Value::Number(0.0),
        });
        change(value);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic elsewhere while holding the lock leaves values that are still
        // numbers: keep counting rather than lose the metrics.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Writes `families`, each with its `# HELP` and `# TYPE` lines and every
    /// series recorded for it. A family with no labels shows zeros before
    /// its first sample, so that it is visible from the start.
    pub fn render(&self, families: &[&'static Family], out: &mut Exposition) {
        let series = self.lock().series.clone();
        for family in families {
            out.family(family);
            let mut found = false;
            let own = series.range((family.name, Vec::new())..).take_while(|((name, _), _)| *name == family.name);
            for ((_, labels), value) in own {
                found = true;
                let labels: Vec<(&str, &str)> =
                    family.labels.iter().copied().zip(labels.iter().map(String::as_str)).collect();
                match (value, &family.kind) {
                    (Value::Number(n), _) => out.sample(family.name, &labels, *n),
                    (Value::Histogram { buckets, sum, count }, Kind::Histogram(bounds)) => {
                        out.histogram(family.name, &labels, bounds, buckets, *sum, *count)
                    }
                    (Value::Histogram { .. }, _) => {}
                }
            }
            if !found && family.labels.is_empty() {
                match family.kind {
                    Kind::Histogram(bounds) => {
                        out.histogram(family.name, &[], bounds, &vec![0; bounds.len() + 1], 0.0, 0)
                    }
                    Kind::Counter | Kind::Gauge => out.sample(family.name, &[], 0.0),
                }
            }
        }
    }
}

/// A scrape's text, written family by family.
#[derive(Debug, Default)]
pub struct Exposition {
    text: String,
}

impl Exposition {
    /// The `# HELP` and `# TYPE` lines that open a family.
    pub fn family(&mut self, family: &Family) {
        let help = family.help.replace('\\', "\\\\").replace('\n', "\\n");
        let _ = writeln!(self.text, "# HELP {} {help}", family.name);
        let _ = writeln!(self.text, "# TYPE {} {}", family.name, family.type_name());
    }

    /// One sample line: `name{label="value",…} value`.
    pub fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        self.text.push_str(name);
        if !labels.is_empty() {
            self.text.push('{');
            for (i, (label, value)) in labels.iter().enumerate() {
                if i > 0 {
                    self.text.push(',');
                }
                let _ = write!(self.text, "{label}=\"{}\"", escape_label(value));
            }
            self.text.push('}');
        }
        let _ = writeln!(self.text, " {}", number(value));
    }

    /// A histogram's series: cumulative `_bucket`s up to `+Inf`, `_sum`, `_count`.
    fn histogram(
        &mut self,
        name: &str,
        labels: &[(&str, &str)],
        bounds: &[f64],
        buckets: &[u64],
        sum: f64,
        count: u64,
    ) {
        let bucket_name = format!("{name}_bucket");
        let mut cumulative = 0;
        for (i, in_bucket) in buckets.iter().enumerate() {
            cumulative += in_bucket;
            let le = bounds.get(i).map(|b| number(*b)).unwrap_or_else(|| "+Inf".to_string());
            let mut with_le = labels.to_vec();
            with_le.push(("le", &le));
            self.sample(&bucket_name, &with_le, cumulative as f64);
        }
        self.sample(&format!("{name}_sum"), labels, sum);
        self.sample(&format!("{name}_count"), labels, count as f64);
    }

    /// The text, ready to serve.
    pub fn into_text(self) -> String {
        self.text
    }
}

/// A label value as the format quotes it: backslash, double quote and line
/// feed escaped.
fn escape_label(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// A sample value as the format writes it (Go's spelling of the infinities and NaN).
fn number(value: f64) -> String {
    match value {
        v if v.is_nan() => "NaN".to_string(),
        v if v == f64::INFINITY => "+Inf".to_string(),
        v if v == f64::NEG_INFINITY => "-Inf".to_string(),
        v => format!("{v}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static RUNS: Family = Family { name: "t_runs_total", help: "Runs.", kind: Kind::Counter, labels: &["status"] };
    static IDLE: Family =
        Family { name: "t_idle_total", help: "Never\\counted\nyet.", kind: Kind::Counter, labels: &[] };
    static LATENCY: Family =
        Family { name: "t_latency_seconds", help: "Latency.", kind: Kind::Histogram(&[0.1, 1.0]), labels: &["kind"] };

    fn render(registry: &Registry) -> String {
        let mut out = Exposition::default();
        registry.render(&[&RUNS, &IDLE, &LATENCY], &mut out);
        out.into_text()
    }

    #[test]
    fn counters_add_up_per_label_value_and_help_is_escaped() {
        let registry = Registry::new();
        registry.add(&RUNS, &["failed"], 1.0);
        registry.add(&RUNS, &["succeeded"], 1.0);
        registry.add(&RUNS, &["succeeded"], 2.5);
        let text = render(&registry);
        assert!(text.starts_with("# HELP t_runs_total Runs.\n# TYPE t_runs_total counter\n"), "{text}");
        assert!(text.contains("t_runs_total{status=\"failed\"} 1\n"), "{text}");
        assert!(text.contains("t_runs_total{status=\"succeeded\"} 3.5\n"), "{text}");
        assert!(text.contains("# HELP t_idle_total Never\\\\counted\\nyet.\n"), "{text}");
        assert!(text.contains("\nt_idle_total 0\n"), "an unlabelled counter shows from the start: {text}");
    }

    #[test]
    fn histogram_buckets_are_cumulative_and_end_at_inf() {
        let registry = Registry::new();
        for observed in [0.05, 0.1, 0.5, 7.0] {
            registry.observe(&LATENCY, &["tool"], observed);
        }
        let text = render(&registry);
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("t_latency_seconds")).collect();
        assert_eq!(
            lines,
            [
                "t_latency_seconds_bucket{kind=\"tool\",le=\"0.1\"} 2",
                "t_latency_seconds_bucket{kind=\"tool\",le=\"1\"} 3",
                "t_latency_seconds_bucket{kind=\"tool\",le=\"+Inf\"} 4",
                "t_latency_seconds_sum{kind=\"tool\"} 7.65",
                "t_latency_seconds_count{kind=\"tool\"} 4",
            ]
        );
    }

    #[test]
    fn label_values_are_escaped_and_families_do_not_mix() {
        let registry = Registry::new();
        registry.add(&RUNS, &["a \"quoted\" \\ value\nwith a line feed"], 1.0);
        registry.observe(&LATENCY, &["inference"], 0.2);
        let text = render(&registry);
        assert!(text.contains("t_runs_total{status=\"a \\\"quoted\\\" \\\\ value\\nwith a line feed\"} 1\n"), "{text}");
        let runs: Vec<&str> = text.lines().filter(|l| l.starts_with("t_runs_total")).collect();
        assert_eq!(runs.len(), 1, "{text}");
    }

    /// What `record` logged, line by line, at any level.
    fn logged(record: impl FnOnce()) -> Vec<String> {
        let captured = std::sync::Arc::new(Mutex::new(Vec::new()));
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || Captured(writer.clone()))
            .with_ansi(false)
            .with_max_level(tracing::Level::TRACE)
            .finish();
        tracing::subscriber::with_default(subscriber, record);
        let text = String::from_utf8(captured.lock().unwrap().clone()).unwrap();
        text.lines().map(str::to_string).collect()
    }

    struct Captured(std::sync::Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Checked in every build, not only where `debug_assertions` would
    /// have caught it: a series whose label values do not match its
    /// family's names would be written with labels silently dropped.
    #[test]
    fn a_series_with_the_wrong_number_of_labels_is_refused_and_logged_once() {
        let registry = Registry::new();
        let lines = logged(|| {
            registry.add(&RUNS, &["failed", "extra"], 1.0);
            registry.add(&RUNS, &[], 1.0);
            registry.observe(&LATENCY, &["tool", "extra"], 0.5);
            registry.add(&RUNS, &["succeeded"], 1.0);
        });
        let text = render(&registry);
        let runs: Vec<&str> = text.lines().filter(|l| l.starts_with("t_runs_total")).collect();
        assert_eq!(runs, ["t_runs_total{status=\"succeeded\"} 1"], "{text}");
        assert!(!text.lines().any(|l| l.starts_with("t_latency_seconds")), "{text}");
        let refusals: Vec<&String> = lines.iter().filter(|l| l.contains("label")).collect();
        assert_eq!(refusals.len(), 2, "once per family: {lines:?}");
        assert!(refusals[0].contains("t_runs_total") && refusals[1].contains("t_latency_seconds"), "{lines:?}");
    }

    #[test]
    fn special_values_use_the_formats_spelling() {
        assert_eq!(number(f64::INFINITY), "+Inf");
        assert_eq!(number(f64::NEG_INFINITY), "-Inf");
        assert_eq!(number(f64::NAN), "NaN");
        assert_eq!(number(0.000_000_1), "0.0000001");
    }
}
