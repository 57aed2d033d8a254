//! Realism mode: the failures real SQS produces and emulators hide, on demand and reproducible.
//!
//! Off by default, so plain use stays exact and predictable. Every effect is drawn from the
//! engine's seed (a keyed hash of a counter, like the ids), so a test that found a bug finds it
//! again on every run with the same seed and the same calls.

use crate::json_text::{push_u64, value_text, Obj};
use serde_json::{Map, Value};
use siphasher::sip::SipHasher13;
use std::hash::Hasher;

/// Which realistic misbehaviours the engine produces. Every knob is independent.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Realism {
    /// Probability that a message delivered from a standard queue stays receivable once more,
    /// as a second copy with its own receipt handle (at-least-once delivery). Never on FIFO.
    pub duplicate_delivery: f64,
    /// Standard queues return visible messages in a shuffled order rather than oldest first.
    pub reorder: bool,
    /// Fraction of the visible messages a short poll (WaitTimeSeconds 0) sees: it may return
    /// fewer than asked, or none while messages exist. Long polls see everything. 0 or 1: off.
    pub short_poll_sampling: f64,
    /// SQS's request quotas, enforced with its throttling error. `None`: unlimited.
    pub throttling: Option<Throttling>,
    /// Extra latency per call, `[min, max]` milliseconds; applied by the host on its clock.
    pub latency: Option<(u32, u32)>,
}

/// Request quotas (spec §8.6, §12), counted per second on the engine's clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Throttling {
    /// FIFO queues: API calls per second per action per partition (SQS: 300; a batch of 10
    /// counts as one call, hence 3,000 messages/s).
    pub fifo_per_action: u32,
    /// High-throughput FIFO queues: calls per second per action per partition.
    pub high_throughput_per_partition: u32,
    /// High-throughput FIFO queues: how many partitions message groups hash onto.
    pub high_throughput_partitions: u32,
    /// Standard queues: calls per second per action (`None`: unlimited, as SQS's "nearly
    /// unlimited").
    pub standard_per_action: Option<u32>,
}

impl Default for Throttling {
    fn default() -> Self {
        Throttling {
            fifo_per_action: 300,
            high_throughput_per_partition: 3_000,
            high_throughput_partitions: 8,
            standard_per_action: None,
        }
    }
}

impl Realism {
    /// What real SQS does by default: rare duplicates, best-effort order, sampled short polls,
    /// quotas, and a little latency.
    pub fn aws() -> Self {
        Realism {
            duplicate_delivery: 0.01,
            reorder: true,
            short_poll_sampling: 0.5,
            throttling: Some(Throttling::default()),
            latency: Some((5, 30)),
        }
    }

    /// The settings as JSON text (the package's `setRealism` / `realismFor` answers): members in
    /// byte order of their names, as the `Value` they were built as printed them, written
    /// through the crate's writer.
    pub fn to_json(&self) -> String {
        let r = self;
        // A number as serde_json prints it (a non-finite one as `null`, as `json!` made it).
        let number = |f: f64| value_text(&serde_json::Value::from(f));
        let mut out = String::new();
        let mut o = Obj::new(&mut out);
        o.raw("duplicateDelivery", &number(r.duplicate_delivery));
        match r.latency {
            Some((min, max)) => {
                let l = o.member("latency");
                l.push('[');
                push_u64(l, u64::from(min));
                l.push(',');
                push_u64(l, u64::from(max));
                l.push(']');
            }
            None => {
                o.raw("latency", "null");
            }
        }
        o.bool("reorder", r.reorder)
            .raw("shortPollSampling", &number(r.short_poll_sampling));
        match &r.throttling {
            Some(t) => {
                Obj::new(o.member("throttling"))
                    .u64("fifoPerAction", u64::from(t.fifo_per_action))
                    .u64(
                        "highThroughputPartitions",
                        u64::from(t.high_throughput_partitions),
                    )
                    .u64(
                        "highThroughputPerPartition",
                        u64::from(t.high_throughput_per_partition),
                    )
                    .nullable_u64("standardPerAction", t.standard_per_action.map(u64::from))
                    .end();
            }
            None => {
                o.raw("throttling", "null");
            }
        }
        o.end();
        out
    }

    /// Does any engine-side knob do something?
    pub fn is_active(&self) -> bool {
        self.duplicate_delivery > 0.0
            || self.reorder
            || (self.short_poll_sampling > 0.0 && self.short_poll_sampling < 1.0)
            || self.throttling.is_some()
    }
}

/// A realism setting refused, with the message the caller sees: a value of the wrong type
/// (`Type`, a JS `TypeError`) or a number out of range (`Range`, a `RangeError`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingError {
    /// The value has the wrong type or names an unknown knob, quota or preset.
    Type(String),
    /// A number outside what the knob takes.
    Range(String),
}

/// The knobs a setting may name and the quotas its throttling may set; anything else is a typo
/// that would do nothing. Messages list them as the `*_TEXT` beside them (the order `to_json`
/// writes them), written out rather than joined at run time: the package ships every byte.
const KNOBS: [&str; 5] = [
    "duplicateDelivery",
    "latency",
    "reorder",
    "shortPollSampling",
    "throttling",
];
const KNOBS_TEXT: &str = "duplicateDelivery, latency, reorder, shortPollSampling, throttling";
const QUOTAS: [&str; 4] = [
    "fifoPerAction",
    "highThroughputPartitions",
    "highThroughputPerPartition",
    "standardPerAction",
];
const QUOTAS_TEXT: &str =
    "fifoPerAction, highThroughputPartitions, highThroughputPerPartition, standardPerAction";

/// A message of these pieces: cheaper in the package than `format!`'s machinery at each place.
fn message(pieces: &[&str]) -> String {
    let mut out = String::new();
    for piece in pieces {
        out.push_str(piece);
    }
    out
}

impl Realism {
    /// Read a realism setting, the one place it is checked: JSON text of a preset name
    /// (`"aws"`), an object of knobs, or `null`/`false` for off (`None`). An absent knob is
    /// off and `throttling: true` is SQS's quotas. `what` names the setting in messages
    /// (`realism`, `options.realism`). For one queue (`for_queue`) latency, which is the
    /// network's, is refused from an object and left out of a preset.
    ///
    /// The text is what `JSON.stringify` makes of the JS value, with the values JSON cannot
    /// hold (NaN, ±Infinity, BigInt) written as the strings JS prints for them, so that a
    /// message quotes what the caller passed as `String(value)` would.
    pub fn from_setting(
        text: &str,
        what: &str,
        for_queue: bool,
    ) -> Result<Option<Realism>, SettingError> {
        use SettingError::Type;
        // Only a caller of the core itself can pass text that is not JSON (the wrapper writes
        // it): it is none of the settings below either, and is refused as such.
        let value = serde_json::from_str(text).unwrap_or(Value::Bool(true));
        match value {
            Value::Null | Value::Bool(false) => Ok(None),
            Value::String(name) if name == "aws" => {
                let mut r = Realism::aws();
                if for_queue {
                    r.latency = None;
                }
                Ok(Some(r))
            }
            Value::String(name) => Err(Type(message(&[
                what,
                ": unknown preset \"",
                &name,
                "\" (known: \"aws\")",
            ]))),
            Value::Object(obj) => knobs(&obj, what, for_queue).map(Some),
            _ => Err(Type(message(&[
                what,
                " must be \"aws\", an object of knobs, or null",
            ]))),
        }
    }
}

/// An object of knobs, checked in a fixed order (unknown knobs, `reorder`, `throttling`,
/// `latency`, the probabilities), so that a setting with several faults names the same one each time.
fn knobs(obj: &Map<String, Value>, what: &str, for_queue: bool) -> Result<Realism, SettingError> {
    use SettingError::{Range, Type};
    if let Some(key) = obj.keys().find(|k| !KNOBS.contains(&k.as_str())) {
        return Err(Type(message(&[
            what,
            ": unknown knob \"",
            key,
            "\" (knobs: ",
            KNOBS_TEXT,
            ")",
        ])));
    }
    // An explicit null is not a boolean: only an absent `reorder` means false.
    let reorder = match obj.get("reorder") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(Type(message(&[what, ".reorder must be a boolean"]))),
    };
    let throttling = match obj.get("throttling") {
        None | Some(Value::Null | Value::Bool(false)) => None,
        Some(Value::Bool(true)) => Some(Throttling::default()),
        Some(Value::Object(quotas)) => Some(throttling(quotas, what)?),
        // An array is an object whose keys are its indexes, none of them a quota.
        Some(Value::Array(items)) if items.is_empty() => Some(Throttling::default()),
        Some(Value::Array(_)) => return Err(unknown_quota(what, "0")),
        Some(_) => {
            return Err(Type(message(&[
                what,
                ".throttling must be true, an object of quotas, or null",
            ])))
        }
    };
    let latency = match obj.get("latency") {
        None | Some(Value::Null) => None,
        Some(Value::Array(pair)) if pair.len() == 2 => {
            let min = count(&pair[0], &[what, ".latency[0]"])?;
            let max = count(&pair[1], &[what, ".latency[1]"])?;
            if min > max {
                return Err(Range(message(&[
                    what,
                    ".latency: min ",
                    &min.to_string(),
                    " is above max ",
                    &max.to_string(),
                ])));
            }
            Some((min, max))
        }
        Some(_) => {
            return Err(Type(message(&[
                what,
                ".latency must be [min, max] milliseconds",
            ])))
        }
    };
    let realism = Realism {
        duplicate_delivery: probability(obj, what, "duplicateDelivery")?,
        reorder,
        short_poll_sampling: probability(obj, what, "shortPollSampling")?,
        throttling,
        latency,
    };
    if for_queue && realism.latency.is_some() {
        return Err(Type(
            "setRealism: latency is the network's, set it for the whole engine (queue undefined)"
                .into(),
        ));
    }
    Ok(realism)
}

fn unknown_quota(what: &str, key: &str) -> SettingError {
    SettingError::Type(message(&[
        what,
        ".throttling: unknown quota \"",
        key,
        "\" (quotas: ",
        QUOTAS_TEXT,
        ")",
    ]))
}

/// SQS's quotas with the ones the setting names replaced; a null one keeps SQS's.
fn throttling(quotas: &Map<String, Value>, what: &str) -> Result<Throttling, SettingError> {
    let mut t = Throttling::default();
    for (key, v) in quotas {
        if !QUOTAS.contains(&key.as_str()) {
            return Err(unknown_quota(what, key));
        }
        if v.is_null() {
            continue;
        }
        let n = count(v, &[what, ".throttling.", key])?;
        match key.as_str() {
            "fifoPerAction" => t.fifo_per_action = n,
            "highThroughputPartitions" => t.high_throughput_partitions = n,
            "highThroughputPerPartition" => t.high_throughput_per_partition = n,
            _ => t.standard_per_action = Some(n),
        }
    }
    Ok(t)
}

/// A count of calls, partitions or milliseconds: an integer in 0..=u32::MAX. `label` names it
/// in the message, which is written only when it is refused.
fn count(v: &Value, label: &[&str]) -> Result<u32, SettingError> {
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| {
            let mut m = message(label);
            m.push_str(" must be a non-negative integer, got ");
            m.push_str(&js_text(v));
            SettingError::Range(m)
        })
}

/// A probability knob; absent or null is 0.
fn probability(obj: &Map<String, Value>, what: &str, key: &str) -> Result<f64, SettingError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(0.0),
        Some(Value::Number(n)) if n.as_f64().is_some_and(|p| (0.0..=1.0).contains(&p)) => {
            Ok(n.as_f64().unwrap_or(0.0))
        }
        Some(v) => Err(SettingError::Range(message(&[
            what,
            ".",
            key,
            " must be a probability between 0 and 1, got ",
            &js_text(v),
        ]))),
    }
}

/// A value for messages: a string bare, as JS's `String(value)` prints it, an object as
/// `[object Object]` as it does too, anything else as JSON (an array in brackets, where `String`
/// would join its items: the package ships every byte, and JSON says as much).
fn js_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(_) => "[object Object]".into(),
        // Not `Value`'s `Display`: that brings serde_json's pretty printer into the package.
        _ => value_text(v),
    }
}

/// Seeded draws for realism effects.
#[derive(Debug, Clone)]
pub(crate) struct Dice {
    key: (u64, u64),
    counter: u64,
}

impl Dice {
    pub(crate) fn new(seed: u64) -> Self {
        Dice {
            key: (seed ^ 0x7265_616c_6973_6d21, seed.rotate_left(17)),
            counter: 0,
        }
    }

    fn next_u64(&mut self) -> u64 {
        self.counter += 1;
        let mut h = SipHasher13::new_with_keys(self.key.0, self.key.1);
        h.write_u64(self.counter);
        h.finish()
    }

    /// A uniform draw in [0, 1).
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.unit() < p
    }

    /// A uniform index in [0, n).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        (self.next_u64() % n as u64) as usize
    }
}

/// A stable partition for a message group (FNV-1a, so every host computes the same one).
pub fn group_partition(group: &str, partitions: u32) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in group.as_bytes() {
        h ^= *b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h % partitions.max(1)
}

#[cfg(test)]
mod tests {
    fn read(text: &str) -> Result<Option<Realism>, SettingError> {
        Realism::from_setting(text, "realism", false)
    }

    fn refused(text: &str) -> String {
        match read(text) {
            Err(SettingError::Type(m)) => format!("Type: {m}"),
            Err(SettingError::Range(m)) => format!("Range: {m}"),
            Ok(r) => panic!("{text} was taken as {r:?}"),
        }
    }

    #[test]
    fn settings_read_as_the_wrapper_documents() {
        assert_eq!(read("null"), Ok(None));
        assert_eq!(read("false"), Ok(None));
        assert_eq!(read("\"aws\""), Ok(Some(Realism::aws())));
        assert_eq!(read("{}"), Ok(Some(Realism::default())));
        let on = Some(Throttling::default());
        assert_eq!(
            read(r#"{"throttling":true}"#).unwrap().unwrap().throttling,
            on
        );
        // An array is an object of its indexes: empty, it sets no quota.
        assert_eq!(
            read(r#"{"throttling":[]}"#).unwrap().unwrap().throttling,
            on
        );
        let pinned = read(r#"{"throttling":{"standardPerAction":5,"fifoPerAction":null},"latency":[0,0],"duplicateDelivery":1}"#)
            .unwrap()
            .unwrap();
        assert_eq!(pinned.throttling.unwrap().standard_per_action, Some(5));
        assert_eq!(pinned.latency, Some((0, 0)));
        assert_eq!(pinned.duplicate_delivery, 1.0);
        // What the core answers is read back as the same settings (a rebuild re-applies it).
        for r in [Realism::aws(), pinned_realism()] {
            assert_eq!(read(&r.to_json()), Ok(Some(r)));
        }
    }

    fn pinned_realism() -> Realism {
        Realism {
            duplicate_delivery: 0.25,
            reorder: true,
            short_poll_sampling: 1.0,
            throttling: Some(Throttling {
                standard_per_action: Some(u32::MAX),
                ..Throttling::default()
            }),
            latency: Some((3, 3)),
        }
    }

    #[test]
    fn refusals_name_the_value_as_js_prints_it() {
        let cases = [
            ("5", "Type: realism must be \"aws\", an object of knobs, or null"),
            ("[]", "Type: realism must be \"aws\", an object of knobs, or null"),
            ("{", "Type: realism must be \"aws\", an object of knobs, or null"),
            ("\"fast\"", "Type: realism: unknown preset \"fast\" (known: \"aws\")"),
            (r#"{"reorder":null}"#, "Type: realism.reorder must be a boolean"),
            (r#"{"duplicateDelivery":"NaN"}"#, "Range: realism.duplicateDelivery must be a probability between 0 and 1, got NaN"),
            (r#"{"shortPollSampling":[1,null,2]}"#, "Range: realism.shortPollSampling must be a probability between 0 and 1, got [1,null,2]"),
            (r#"{"latency":[1,{}]}"#, "Range: realism.latency[1] must be a non-negative integer, got [object Object]"),
            (r#"{"latency":[-1,2]}"#, "Range: realism.latency[0] must be a non-negative integer, got -1"),
            (r#"{"latency":[1,4294967296]}"#, "Range: realism.latency[1] must be a non-negative integer, got 4294967296"),
            (r#"{"throttling":[0]}"#, "Type: realism.throttling: unknown quota \"0\" (quotas: fifoPerAction, highThroughputPartitions, highThroughputPerPartition, standardPerAction)"),
            (r#"{"throttling":"on"}"#, "Type: realism.throttling must be true, an object of quotas, or null"),
            (r#"{"throttling":{"fifoPerAction":0.5}}"#, "Range: realism.throttling.fifoPerAction must be a non-negative integer, got 0.5"),
            (r#"{"Reorder":true}"#, "Type: realism: unknown knob \"Reorder\" (knobs: duplicateDelivery, latency, reorder, shortPollSampling, throttling)"),
        ];
        for (text, message) in cases {
            assert_eq!(refused(text), message, "{text}");
        }
    }

    /// The lists a setting is checked against are the members `to_json` writes, and their text
    /// in messages is those lists.
    #[test]
    fn knobs_and_quotas_are_the_settings_members() {
        let aws: serde_json::Value = serde_json::from_str(&Realism::aws().to_json()).unwrap();
        let keys =
            |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&aws), KNOBS);
        assert_eq!(keys(&aws["throttling"]), QUOTAS);
        assert_eq!(KNOBS.join(", "), KNOBS_TEXT);
        assert_eq!(QUOTAS.join(", "), QUOTAS_TEXT);
    }

    #[test]
    fn a_queue_takes_no_latency() {
        let queue = |text| Realism::from_setting(text, "realism", true);
        let aws = queue("\"aws\"").unwrap().unwrap();
        assert_eq!((aws.latency, aws.reorder), (None, true));
        assert_eq!(
            queue(r#"{"latency":[1,2]}"#),
            Err(SettingError::Type("setRealism: latency is the network's, set it for the whole engine (queue undefined)".into()))
        );
        assert!(queue(r#"{"latency":null,"reorder":true}"#)
            .unwrap()
            .is_some());
    }

    /// `to_json` against the `json!` tree it replaced, printed.
    #[test]
    fn to_json_is_the_value_it_replaced() {
        let old = |r: &Realism| {
            serde_json::json!({
                "duplicateDelivery": r.duplicate_delivery,
                "reorder": r.reorder,
                "shortPollSampling": r.short_poll_sampling,
                "throttling": r.throttling.as_ref().map(|t| serde_json::json!({
                    "fifoPerAction": t.fifo_per_action,
                    "highThroughputPerPartition": t.high_throughput_per_partition,
                    "highThroughputPartitions": t.high_throughput_partitions,
                    "standardPerAction": t.standard_per_action,
                })),
                "latency": r.latency.map(|(min, max)| [min, max]),
            })
            .to_string()
        };
        let odd = Realism {
            duplicate_delivery: f64::NAN,
            reorder: false,
            short_poll_sampling: 1e-7,
            throttling: Some(Throttling {
                standard_per_action: Some(u32::MAX),
                ..Throttling::default()
            }),
            latency: Some((0, u32::MAX)),
        };
        let third = Realism {
            duplicate_delivery: 1.0,
            short_poll_sampling: f64::INFINITY,
            ..Realism::default()
        };
        for r in [Realism::default(), Realism::aws(), odd, third] {
            assert_eq!(r.to_json(), old(&r));
        }
    }

    use super::*;

    #[test]
    fn dice_are_reproducible_and_roughly_uniform() {
        let mut a = Dice::new(7);
        let mut b = Dice::new(7);
        let xs: Vec<f64> = (0..1000).map(|_| a.unit()).collect();
        let ys: Vec<f64> = (0..1000).map(|_| b.unit()).collect();
        assert_eq!(xs, ys);
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!((0.45..0.55).contains(&mean), "{mean}");
        assert_ne!(Dice::new(8).unit(), Dice::new(7).unit());
    }

    #[test]
    fn partitions_are_stable() {
        assert_eq!(group_partition("g1", 8), group_partition("g1", 8));
        assert!(group_partition("anything", 4) < 4);
    }
}
