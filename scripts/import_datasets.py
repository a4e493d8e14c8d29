#!/usr/bin/env python3
"""Refresh the dataset field schemas that escpush embeds.

    python3 scripts/import_datasets.py [SOURCE_DIR]    (default: ../shared/datasets)

The source folder holds one JSON file per Cloudflare Logpush dataset, copied from
cloudflare/cloudflare-docs (see its README for paths and commits). Names that Cloudflare's
2026-09-15 field list has but the stored page lacks (`known_missing_fields`) are kept too.

The copied pages are not always the docs' truth (an old page version, a page with other
names). `scripts/dataset_corrections.json` holds the corrections, each with its source page
(path@commit, or the published page and its date) and why: a field's type and description
taken from a docs page, or a dataset's whole field list. Its `undocumented` list names the
fields whose type no docs page gives; they stay untyped (`null`), and escpush's validation
reports a filter on them (`untyped_field`). The script refuses to write anything when a field
is untyped and not listed there, when a listed field has a type, or when a correction no
longer applies (its field is gone or already typed): a refreshed source forces a decision.

It writes two files, both committed (building, testing and running escpush never needs the
source folder):

* crates/escpush-filter/data/datasets.json: the facts (dataset, scope, title, source, and per
  field: name, type, deprecated), plus the fields that Cloudflare's "filtering limitations"
  partial (src/content/partials/logs/filtering-limitations.mdx) says cannot be filtered.
* crates/escpush-emulator/data/field_descriptions.json: each field's one-sentence
  description, which the emulator's `GET .../logpush/datasets/{dataset}/fields` answers with
  as the API does; a field the docs do not describe is left out.
"""

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "crates" / "escpush-filter" / "data" / "datasets.json"
DESCRIPTIONS_OUT = ROOT / "crates" / "escpush-emulator" / "data" / "field_descriptions.json"
CORRECTIONS = ROOT / "scripts" / "dataset_corrections.json"

# src/content/partials/logs/filtering-limitations.mdx @ 2678ac4c8e0abda808477ea82dbdb67182020649:
# "For the Firewall events dataset, the following fields are not supported: ..."
FIREWALL_UNFILTERABLE = [
    "Action",
    "Description",
    "Kind",
    "MatchIndex",
    "Metadata",
    "OriginatorRayID",
    "RuleID",
    "Source",
]
LIMITATIONS_SOURCE = (
    "cloudflare/cloudflare-docs:src/content/partials/logs/filtering-limitations.mdx"
    "@2678ac4c8e0abda808477ea82dbdb67182020649"
)


def fail(message: str) -> None:
    sys.exit(f"import_datasets: {message}")


def read_source(src: pathlib.Path) -> dict[tuple[str, str], dict]:
    """Each dataset file as (scope, dataset) -> {doc, fields: [{name, type, deprecated, description}]}."""
    out = {}
    for path in sorted(src.glob("*.json")):
        doc = json.loads(path.read_text())
        fields = [
            {
                "name": f["name"],
                "type": f["type"],
                "deprecated": bool(f.get("deprecated", False)),
                "description": f.get("description"),
            }
            for f in doc["fields"]
        ]
        known = {f["name"] for f in fields}
        for f in doc.get("known_missing_fields", []):
            if f["name"] not in known:
                fields.append(
                    {
                        "name": f["name"],
                        "type": f.get("type"),
                        "deprecated": bool(f.get("deprecated", False)),
                        "description": f.get("description"),
                    }
                )
        out[(doc["scope"], doc["dataset"])] = {"doc": doc, "fields": fields}
    return out


def apply_corrections(data: dict[tuple[str, str], dict], corrections: dict) -> None:
    """Applies scripts/dataset_corrections.json, refusing any that no longer applies."""
    for c in corrections["corrections"]:
        key = (c["scope"], c["dataset"])
        where = f"correction of {c['scope']} {c['dataset']}"
        if not c.get("source") or not c.get("why"):
            fail(f"{where}: every correction names its source and why")
        if key not in data:
            fail(f"{where}: no such dataset in the source")
        entry = data[key]
        if "fields_from" in c:
            other = (c["fields_from"]["scope"], c["fields_from"]["dataset"])
            if other not in data:
                fail(f"{where}: fields_from {other} is not in the source")
            fields = [dict(f) for f in data[other]["fields"]]
            expected = [f["name"] for f in entry["doc"].get(c["expect_names_from"], [])]
            if sorted(f["name"] for f in fields) != sorted(expected):
                fail(f"{where}: the names of {other} no longer equal its {c['expect_names_from']}")
            entry["fields"] = fields
            entry["source"] = (
                "cloudflare/cloudflare-docs:"
                + entry["doc"]["source_path"]
                + " as published, with the fields of "
                + data[other]["doc"]["source"].split(":", 1)[1]
                + " (scripts/dataset_corrections.json)"
            )
        else:
            field = next((f for f in entry["fields"] if f["name"] == c["field"]), None)
            if field is None:
                fail(f"{where}: no field {c['field']}")
            if field["type"] is not None:
                fail(f"{where}: {c['field']} now has the type {field['type']!r} in the source; drop the correction")
            field["type"] = c["type"]
            field["description"] = c["description"]


def check_untyped(data: dict[tuple[str, str], dict], corrections: dict) -> None:
    """Untyped fields are exactly those listed as undocumented."""
    listed = {(u["scope"], u["dataset"], name) for u in corrections["undocumented"] for name in u["fields"]}
    untyped = {(scope, ds, f["name"]) for (scope, ds), e in data.items() for f in e["fields"] if f["type"] is None}
    if untyped - listed:
        fail(f"untyped, and not in `undocumented` of {CORRECTIONS.name}: {sorted(untyped - listed)}")
    if listed - untyped:
        fail(f"in `undocumented` of {CORRECTIONS.name} but typed (or gone): {sorted(listed - untyped)}")


def main() -> None:
    src = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "datasets"
    corrections = json.loads(CORRECTIONS.read_text())
    data = read_source(src)
    apply_corrections(data, corrections)
    check_untyped(data, corrections)

    datasets = []
    descriptions = {}
    for (scope, name), entry in data.items():
        doc = entry["doc"]
        out = {
            "dataset": name,
            "scope": scope,
            "title": doc.get("title", name),
            "source": entry.get("source", doc["source"]),
            "fields": [[f["name"], f["type"], f["deprecated"]] for f in entry["fields"]],
        }
        if name == "firewall_events":
            out["unfilterable"] = FIREWALL_UNFILTERABLE
        datasets.append(out)
        descriptions[f"{scope}/{name}"] = {f["name"]: f["description"] for f in entry["fields"] if f["description"]}
    datasets.sort(key=lambda d: (d["scope"] != "zone", d["dataset"]))

    head = {
        "about": "Logpush dataset field schemas (facts only) from cloudflare/cloudflare-docs; "
        "generated by scripts/import_datasets.py. Do not edit by hand.",
        "corrections": "scripts/dataset_corrections.json (each with its source page and why)",
        "limitations_source": LIMITATIONS_SOURCE,
    }
    lines = [json.dumps(d, separators=(",", ":")) for d in datasets]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(head, indent=1)[:-2] + ',\n "datasets": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n")

    desc_head = {
        "about": "The one-sentence description of each Logpush dataset field, from cloudflare/cloudflare-docs "
        "(as in crates/escpush-filter/data/datasets.json); generated by scripts/import_datasets.py. "
        "Do not edit by hand.",
    }
    keys = sorted(descriptions, key=lambda k: (not k.startswith("zone/"), k))
    desc_lines = [
        json.dumps(k) + ":" + json.dumps(descriptions[k], separators=(",", ":"), ensure_ascii=False) for k in keys
    ]
    DESCRIPTIONS_OUT.parent.mkdir(parents=True, exist_ok=True)
    DESCRIPTIONS_OUT.write_text(
        json.dumps(desc_head, indent=1)[:-2] + ',\n "datasets": {\n  ' + ",\n  ".join(desc_lines) + "\n }\n}\n"
    )
    fields = sum(len(d["fields"]) for d in datasets)
    untyped = sum(f[1] is None for d in datasets for f in d["fields"])
    described = sum(len(v) for v in descriptions.values())
    print(
        f"wrote {OUT.relative_to(ROOT)}: {len(datasets)} datasets, {fields} fields ({untyped} untyped); "
        f"{DESCRIPTIONS_OUT.relative_to(ROOT)}: {described} descriptions"
    )


if __name__ == "__main__":
    main()
