//! `GET .../logpush/datasets/{dataset}/fields` answers as the API does: each field's
//! description from Cloudflare's docs, not a placeholder.

use std::io::{Read, Write};
use std::net::TcpStream;

use escpush_emulator::Emulator;
use escpush_filter::{datasets, DatasetScope, FieldType};
use serde_json::Value;

/// The `result` of a GET of a dataset's fields, on a fresh connection.
fn fields(emu: &Emulator, scope: DatasetScope, dataset: &str) -> serde_json::Map<String, Value> {
    let path = match scope {
        DatasetScope::Zone => "zones/z1",
        DatasetScope::Account => "accounts/a1",
    };
    let mut s = TcpStream::connect(emu.addr()).unwrap();
    write!(
        s,
        "GET /client/v4/{path}/logpush/datasets/{dataset}/fields HTTP/1.1\r\nHost: x\r\n\
         Authorization: Bearer {}\r\nConnection: close\r\n\r\n",
        emu.api_token()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let body = &answer[answer.find("\r\n\r\n").unwrap() + 4..];
    let envelope: Value = serde_json::from_str(body).unwrap();
    envelope["result"].as_object().unwrap().clone()
}

#[test]
fn the_fields_endpoint_answers_the_docs_descriptions() {
    let emu = Emulator::start().unwrap();
    let http = fields(&emu, DatasetScope::Zone, "http_requests");
    assert_eq!(http["ClientIP"], "IP address of the client.");
    let firewall = fields(&emu, DatasetScope::Zone, "firewall_events");
    assert_eq!(
        firewall["AISecurityCustomTopicCategories"],
        "Customer-defined AI Security topic labels and their relevance scores."
    );
    let websocket = fields(&emu, DatasetScope::Account, "websocket_analytics");
    assert_eq!(
        websocket["BytesReceivedClient"],
        "Number of bytes received from the client."
    );
    assert_eq!(
        fields(&emu, DatasetScope::Account, "gateway_dns")["QueryName"],
        "The query name (for example, 'example.com')."
    );
    // Every field of every dataset, each with its description; only the fields the docs
    // neither type nor describe answer an empty one.
    for d in datasets() {
        let live = fields(&emu, d.scope(), d.name());
        let names: Vec<&str> = live.keys().map(String::as_str).collect();
        let mut embedded: Vec<&str> = d.fields().iter().map(escpush_filter::FieldSchema::name).collect();
        embedded.sort_unstable();
        assert_eq!(names, embedded, "{} {}", d.scope(), d.name());
        for f in d.fields() {
            let description = live[f.name()].as_str().unwrap();
            assert!(
                !description.ends_with(" field"),
                "{}.{}: {description}",
                d.name(),
                f.name()
            );
            assert_eq!(
                description.is_empty(),
                f.field_type() == FieldType::Unknown,
                "{} {}.{}",
                d.scope(),
                d.name(),
                f.name()
            );
        }
    }
}
