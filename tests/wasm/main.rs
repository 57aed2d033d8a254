//! Smoke tests of the wasm-bindgen layer, run by wasm-bindgen-test-runner in Node, or in headless
//! Chromium with `WASM_BINDGEN_USE_BROWSER=1` (see scripts/test-js.sh). They call `WasqCore`
//! exactly as the JS wrapper does and check what JS receives.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Error, Object, Reflect, Uint8Array, WebAssembly, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;
use wasq::wasm::WasqCore;

const NOW: f64 = 1_767_225_600_000.0; // 2026-01-01T00:00:00Z

fn options(seed: Option<f64>) -> JsValue {
    let o = Object::new();
    if let Some(seed) = seed {
        Reflect::set(&o, &"seed".into(), &seed.into()).unwrap();
    }
    o.into()
}

fn json(text: &str) -> JsValue {
    JSON::parse(text).unwrap()
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).unwrap()
}

/// An action through the core's one door, as `pkg-template/src/io.js` takes it: the name and the
/// parameters written into the scratch buffer in wasm memory, the answer read from where it lies.
fn call(core: &mut WasqCore, action: &str, params: &str) -> Result<String, JsValue> {
    let bytes = [action.as_bytes(), params.as_bytes()].concat();
    let at = core.io_buffer(bytes.len())?;
    let memory: WebAssembly::Memory = WasqCore::memory().unchecked_into();
    let view = |at: usize, len: usize| {
        Uint8Array::new_with_byte_offset_and_length(&memory.buffer(), at as u32, len as u32)
    };
    view(at, bytes.len()).copy_from(&bytes);
    let len = core.dispatch(NOW, action.len(), params.len(), JsValue::UNDEFINED, false)?;
    Ok(String::from_utf8(view(core.io_address(), len).to_vec()).unwrap())
}

fn create_queue(core: &mut WasqCore, name: &str) -> String {
    let out = call(core, "CreateQueue", &format!(r#"{{"QueueName":"{name}"}}"#)).unwrap();
    get(&json(&out), "QueueUrl").as_string().unwrap()
}

#[wasm_bindgen_test]
fn send_and_receive_through_dispatch() {
    let mut core = WasqCore::new(options(Some(1.0)), JsValue::UNDEFINED).unwrap();
    let url = create_queue(&mut core, "q");
    let params = format!(r#"{{"QueueUrl":"{url}","MessageBody":"hello"}}"#);
    let sent = json(&call(&mut core, "SendMessage", &params).unwrap());
    assert_eq!(
        get(&sent, "MD5OfMessageBody").as_string().unwrap(),
        "5d41402abc4b2a76b9719d911017c592"
    );
    let got = json(
        &call(
            &mut core,
            "ReceiveMessage",
            &format!(r#"{{"QueueUrl":"{url}"}}"#),
        )
        .unwrap(),
    );
    let first = Array::from(&get(&got, "Messages")).get(0);
    assert_eq!(get(&first, "Body").as_string().unwrap(), "hello");
    let events = json(&core.take_events());
    assert_eq!(Array::from(&events).length(), 3); // queue-created, sent, received
}

#[wasm_bindgen_test]
fn sqs_errors_are_real_js_errors() {
    let mut core = WasqCore::new(options(Some(1.0)), JsValue::UNDEFINED).unwrap();
    let err = call(&mut core, "GetQueueUrl", r#"{"QueueName":"missing"}"#).unwrap_err();
    let err: Error = err.dyn_into().expect("an Error object, not a string");
    assert_eq!(String::from(err.name()), "QueueDoesNotExist");
    assert_eq!(
        String::from(err.message()),
        "The specified queue does not exist."
    );
    assert_eq!(
        get(&err, "code").as_string().unwrap(),
        "AWS.SimpleQueueService.NonExistentQueue"
    );
    assert_eq!(get(&err, "httpStatus").as_f64().unwrap(), 400.0);
}

#[wasm_bindgen_test]
fn bad_inputs_throw_typed_errors() {
    let bad_seed = Object::new();
    Reflect::set(&bad_seed, &"seed".into(), &(-1.0).into()).unwrap();
    let err = WasqCore::new(bad_seed.into(), JsValue::UNDEFINED)
        .err()
        .unwrap();
    assert!(err.is_instance_of::<js_sys::RangeError>());
    let mut core = WasqCore::new(options(Some(1.0)), JsValue::UNDEFINED).unwrap();
    assert!(core
        .tick(f64::NAN)
        .unwrap_err()
        .is_instance_of::<js_sys::RangeError>());
    let err = call(&mut core, "ListQueues", "{not json").unwrap_err();
    assert_eq!(
        String::from(err.dyn_into::<Error>().unwrap().name()),
        "SerializationException"
    );
    let not_records = WasqCore::new(options(Some(1.0)), JsValue::from(5))
        .err()
        .unwrap();
    assert!(not_records.is_instance_of::<js_sys::TypeError>());
}

/// The records layout from a change batch's puts: (key len, key, value len, value)*.
fn records_of_batch(batch: &[u8]) -> Vec<u8> {
    let u32_at = |at: usize| u32::from_le_bytes(batch[at..at + 4].try_into().unwrap()) as usize;
    let puts = u32_at(0);
    let mut at = 8;
    for _ in 0..puts {
        at += 4 + u32_at(at); // key
        at += 4 + u32_at(at); // value
    }
    batch[8..at].to_vec()
}

#[wasm_bindgen_test]
fn changes_restore_the_same_state() {
    let mut core = WasqCore::new(options(Some(2.0)), JsValue::UNDEFINED).unwrap();
    let url = create_queue(&mut core, "kept");
    let mut records = records_of_batch(&core.take_changes().unwrap().unwrap());
    let params = format!(r#"{{"QueueUrl":"{url}","MessageBody":"persisted"}}"#);
    call(&mut core, "SendMessage", &params).unwrap();
    let batch = core.take_changes().unwrap().unwrap();
    let puts = u32::from_le_bytes(batch[0..4].try_into().unwrap());
    assert!(puts > 0);
    records.extend(records_of_batch(&batch));
    assert_eq!(
        core.take_changes().unwrap(),
        None,
        "a second take has nothing left"
    );

    let packed = Uint8Array::from(records.as_slice());
    let mut restored = WasqCore::new(options(Some(2.0)), packed.into()).unwrap();
    let got = json(
        &call(
            &mut restored,
            "ReceiveMessage",
            &format!(r#"{{"QueueUrl":"{url}"}}"#),
        )
        .unwrap(),
    );
    let first = Array::from(&get(&got, "Messages")).get(0);
    assert_eq!(get(&first, "Body").as_string().unwrap(), "persisted");
}

#[wasm_bindgen_test]
fn malformed_record_buffers_are_refused() {
    let mut core = WasqCore::new(options(Some(2.0)), JsValue::UNDEFINED).unwrap();
    create_queue(&mut core, "q");
    let records = records_of_batch(&core.take_changes().unwrap().unwrap());
    let cut = Uint8Array::from(&records[..records.len() - 1]);
    let err = WasqCore::new(options(Some(2.0)), cut.into()).err().unwrap();
    assert!(err.is_instance_of::<js_sys::TypeError>());
    let message = String::from(err.dyn_into::<Error>().unwrap().message());
    assert!(message.contains("cut short"), "{message}");
    let mut bad_key = records.clone();
    bad_key[4] = 0xff; // the first byte of the first key
    let err = WasqCore::new(
        options(Some(2.0)),
        Uint8Array::from(bad_key.as_slice()).into(),
    )
    .err()
    .unwrap();
    let message = String::from(err.dyn_into::<Error>().unwrap().message());
    assert!(message.contains("not UTF-8"), "{message}");
}

#[wasm_bindgen_test]
fn without_a_seed_one_is_drawn_per_core() {
    let a = WasqCore::new(JsValue::UNDEFINED, JsValue::UNDEFINED).unwrap();
    let b = WasqCore::new(JsValue::UNDEFINED, JsValue::UNDEFINED).unwrap();
    assert_ne!(a.seed(), b.seed());
}

#[wasm_bindgen_test]
fn http_requests_go_through_the_protocol_layer() {
    let mut core = WasqCore::new(options(Some(3.0)), JsValue::UNDEFINED).unwrap();
    let head = [
        "POST",
        "/",
        "",
        "x-amz-target",
        "AmazonSQS.CreateQueue",
        "content-type",
        "application/x-amz-json-1.0",
    ]
    .join("\0");
    let body = br#"{"QueueName":"h"}"#.to_vec();
    let res = core
        .handle_http(NOW, &head, body, JsValue::UNDEFINED)
        .unwrap();
    assert_eq!(get(&res, "status").as_f64().unwrap(), 200.0);
    let body = get(&res, "body").dyn_into::<Uint8Array>().unwrap().to_vec();
    let body = String::from_utf8(body).unwrap();
    assert!(body.contains("/000000000000/h"), "{body}");
    let head = get(&res, "head").as_string().unwrap();
    let names: Vec<String> = head
        .split('\0')
        .step_by(2)
        .map(str::to_ascii_lowercase)
        .collect();
    assert!(names.contains(&"x-amzn-requestid".to_string()));
}
