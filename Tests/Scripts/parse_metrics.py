#!/usr/bin/env python3
"""Reads Prometheus text from standard input with prometheus_client's parser (PyPI) and prints
every sample as one JSON object per line: {"family", "type", "name", "labels", "value"}. Text the
parser rejects ends it with status 1 and the parser's error."""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

try:
    for family in text_string_to_metric_families(sys.stdin.read()):
        for sample in family.samples:
            print(json.dumps({"family": family.name, "type": family.type, "name": sample.name,
                              "labels": sample.labels, "value": sample.value}))
except Exception as error:  # the parser raises ValueError and others on bad text
    sys.exit(f"not Prometheus text: {error}")
