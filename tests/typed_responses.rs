//! The typed actions' responses hold a MessageId and an MD5 as values, and a received message's
//! attributes behind `selected`. Each must show as the text the wire answer carries: two
//! services with one seed take the same calls, one typed and one through `dispatch`.

use serde_json::{json, Value};
use wasq::engine::requests::{ReceiveMessageRequest, SendMessageRequest};
use wasq::engine::responses::ReceivedMessage;
use wasq::model::MessageAttributeValue;
use wasq::{CallContext, EngineConfig, Service, SortedMap};

const NOW: u64 = 1_767_225_600_000;

struct Pair {
    typed: Service,
    wire: Service,
    url: String,
}

impl Pair {
    fn new() -> Self {
        let config = || EngineConfig {
            seed: 11,
            ..EngineConfig::default()
        };
        let (mut typed, mut wire) = (Service::new(config()), Service::new(config()));
        let create = json!({ "QueueName": "typed" });
        let ctx = CallContext::default();
        typed
            .dispatch(NOW, &ctx, "CreateQueue", create.clone())
            .expect("create");
        let out = wire
            .dispatch(NOW, &ctx, "CreateQueue", create)
            .expect("create");
        let url = out["QueueUrl"].as_str().expect("url").to_string();
        Pair { typed, wire, url }
    }

    /// SendMessage both ways; the typed answer's values must show as the wire answer's text.
    fn send(&mut self, body: &str, attribute: Option<(&str, &str)>) -> String {
        let ctx = CallContext::default();
        let attributes = attribute.map(|(name, value)| {
            [(
                name.to_string(),
                MessageAttributeValue {
                    data_type: "String".into(),
                    string_value: Some(value.into()),
                    ..Default::default()
                },
            )]
            .into_iter()
            .collect::<SortedMap<_, _>>()
        });
        let typed = self
            .typed
            .send_message(
                NOW,
                &ctx,
                &SendMessageRequest {
                    queue_url: Some(self.url.as_str().into()),
                    message_body: Some(body.into()),
                    message_attributes: attributes,
                    ..Default::default()
                },
            )
            .expect("typed send");
        let mut params = json!({ "QueueUrl": self.url, "MessageBody": body });
        if let Some((name, value)) = attribute {
            params["MessageAttributes"] =
                json!({ name: { "DataType": "String", "StringValue": value } });
        }
        let wire = self
            .wire
            .dispatch(NOW, &ctx, "SendMessage", params)
            .expect("wire send");
        assert_eq!(typed.message_id.to_string(), wire["MessageId"]);
        assert!(typed.message_id == wire["MessageId"].as_str().expect("id"));
        assert_eq!(
            typed.md5_of_message_body.to_string(),
            wire["MD5OfMessageBody"]
        );
        wire["MessageId"].as_str().expect("id").to_string()
    }

    /// ReceiveMessage both ways with these filters: the typed messages and the wire's.
    fn receive(
        &mut self,
        attribute_names: Option<Vec<&str>>,
        message_attribute_names: Option<Vec<&str>>,
    ) -> (Vec<ReceivedMessage>, Vec<Value>) {
        let ctx = CallContext::default();
        let owned = |names: &Option<Vec<&str>>| {
            names
                .as_ref()
                .map(|n| n.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        };
        let typed = self
            .typed
            .receive_message(
                NOW,
                &ctx,
                &ReceiveMessageRequest {
                    queue_url: Some(self.url.clone()),
                    attribute_names: owned(&attribute_names),
                    message_attribute_names: owned(&message_attribute_names),
                    max_number_of_messages: Some(10),
                    visibility_timeout: Some(0),
                    ..Default::default()
                },
            )
            .expect("typed receive");
        let mut params =
            json!({ "QueueUrl": self.url, "MaxNumberOfMessages": 10, "VisibilityTimeout": 0 });
        if let Some(names) = attribute_names {
            params["AttributeNames"] = json!(names);
        }
        if let Some(names) = message_attribute_names {
            params["MessageAttributeNames"] = json!(names);
        }
        let wire = self
            .wire
            .dispatch(NOW, &ctx, "ReceiveMessage", params)
            .expect("wire receive");
        let wire = wire["Messages"].as_array().cloned().unwrap_or_default();
        assert_eq!(typed.messages.len(), wire.len());
        for (t, w) in typed.messages.iter().zip(&wire) {
            assert_eq!(t.message_id.to_string(), w["MessageId"]);
            assert_eq!(t.md5_of_body.to_string(), w["MD5OfBody"]);
            assert_eq!(t.receipt_handle.as_str(), w["ReceiptHandle"]);
            assert_eq!(
                t.md5_of_message_attributes(),
                w["MD5OfMessageAttributes"].as_str()
            );
            let attributes: SortedMap<String, String> = w["Attributes"]
                .as_object()
                .map(|a| {
                    a.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                        .collect()
                })
                .unwrap_or_default();
            assert_eq!(t.attributes(), &attributes);
            let names: Vec<&String> = t.message_attributes().iter().map(|(k, _)| k).collect();
            let wire_names: Vec<&String> = w["MessageAttributes"]
                .as_object()
                .map(|a| a.keys().collect())
                .unwrap_or_default();
            assert_eq!(names, wire_names);
        }
        (typed.messages, wire)
    }
}

#[test]
fn ids_and_md5s_show_as_the_wire_text() {
    let mut p = Pair::new();
    let id = p.send("test", None);
    let (typed, _) = p.receive(None, None);
    assert_eq!(typed[0].message_id.to_string(), id);
    // Spec §5.2: md5("test"), as AWS returned it.
    assert!(typed[0].md5_of_body == "098f6bcd4621d373cade4e832627b4f6");
    assert_eq!(
        format!("{:?}", typed[0].md5_of_body),
        "\"098f6bcd4621d373cade4e832627b4f6\""
    );
}

#[test]
fn nothing_asked_for_selects_nothing() {
    let mut p = Pair::new();
    p.send("with an attribute", Some(("colour", "blue")));
    let (typed, wire) = p.receive(None, None);
    assert!(typed[0].selected.is_none());
    assert!(typed[0].attributes().is_empty());
    assert!(typed[0].message_attributes().is_empty());
    assert_eq!(typed[0].md5_of_message_attributes(), None);
    assert!(wire[0].get("MessageAttributes").is_none());
}

#[test]
fn a_filter_that_selects_nothing_leaves_no_selection() {
    let mut p = Pair::new();
    p.send("with an attribute", Some(("colour", "blue")));
    let (typed, _) = p.receive(None, Some(vec!["size"]));
    assert!(typed[0].selected.is_none());
}

#[test]
fn selected_attributes_are_the_wire_ones() {
    let mut p = Pair::new();
    p.send("with an attribute", Some(("colour", "blue")));
    let (typed, wire) = p.receive(Some(vec!["All"]), Some(vec!["All"]));
    let selected = typed[0].selected.as_deref().expect("a selection");
    assert_eq!(
        selected
            .attributes
            .get("ApproximateReceiveCount")
            .map(String::as_str),
        Some("1")
    );
    assert!(selected.message_attributes.get("colour").is_some());
    assert!(wire[0]["MD5OfMessageAttributes"].is_string());
    // System attributes alone are a selection too.
    let (typed, _) = p.receive(Some(vec!["SentTimestamp"]), None);
    let selected = typed[0].selected.as_deref().expect("a selection");
    assert_eq!(
        selected.attributes.get("SentTimestamp").map(String::as_str),
        Some(NOW.to_string().as_str())
    );
    assert!(selected.message_attributes.is_empty());
}
