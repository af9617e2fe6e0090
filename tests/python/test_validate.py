"""fitsasdf.validate, AsdfFile.validate and open(validate=True): the library's schema validation
from Python, on the fixtures of tests/data/schema (whose verdicts python asdf gives; see
tests/asdfcore/schema/python_verdicts_test.cc) and on the corpus."""

import pytest

import fitsasdf
from conftest import CORPUS, DATA

SCHEMA = DATA / "schema"


def test_invalid_file_reports_the_node_and_keyword():
    report = fitsasdf.validate(SCHEMA / "invalid" / "software-name-not-string.asdf")
    assert report.status == "findings" and not report.sound
    schema_findings = [f for f in report.findings if f.kind == "schema"]
    assert schema_findings
    f = schema_findings[0]
    assert f.pointer == "/asdf_library/name"
    assert f.schema.endswith("core/software-1.0.0")
    assert f.keyword.endswith("/type")
    assert f.value == "42"


def test_valid_files_are_sound():
    for path in sorted((SCHEMA / "valid").glob("*.asdf")):
        report = fitsasdf.validate(path)
        assert report.sound, (path, report.findings)
        assert report.checked.tagged_nodes > 0


def test_open_with_validate_raises_schema_error():
    bad = SCHEMA / "invalid" / "software-name-not-string.asdf"
    with fitsasdf.open(bad) as f:  # off by default: opens
        assert f.asdf_standard
    with pytest.raises(fitsasdf.SchemaError) as info:
        fitsasdf.open(bad, validate=True)
    assert info.value.code == "schema"
    assert "/asdf_library/name" in str(info.value)
    good = sorted((CORPUS / "asdf-reference").rglob("*.asdf"))[0]
    with fitsasdf.open(good, validate=True) as f:
        assert f.validate().sound


def test_tags_without_schema_are_listed_not_findings():
    report = fitsasdf.validate(SCHEMA / "not-errors" / "custom-tag-no-schema.asdf")
    assert report.sound
    assert report.unknown_tags


def test_schema_path_adds_a_site_schema(tmp_path):
    # A site schema for the custom tag, reached through a manifest in --schema-path.
    (tmp_path / "thing-1.0.0.yaml").write_text(
        "%YAML 1.1\n---\n$schema: http://stsci.edu/schemas/yaml-schema/draft-01\n"
        "id: http://example.org/schemas/custom/thing-1.0.0\n"
        "type: object\nrequired: [mass]\n...\n")
    (tmp_path / "manifest.yaml").write_text(
        "%YAML 1.1\n---\nid: http://example.org/manifests/custom-1.0.0\n"
        "extension_uri: http://example.org/extensions/custom-1.0.0\n"
        "tags:\n- tag_uri: tag:example.org:custom/thing-1.0.0\n"
        "  schema_uri: http://example.org/schemas/custom/thing-1.0.0\n...\n")
    path = SCHEMA / "not-errors" / "custom-tag-no-schema.asdf"
    report = fitsasdf.validate(path, schema_path=[tmp_path])
    assert not report.unknown_tags
    assert [f.keyword for f in report.findings] == ["/required"]


def test_unknown_keyword_and_non_asdf_input():
    with pytest.raises(TypeError):
        fitsasdf.validate(SCHEMA / "valid" / "minimal-1.6.0.asdf", colour="blue")
    with pytest.raises(fitsasdf.NotFitsError):
        fitsasdf.validate(SCHEMA / "README.md")
