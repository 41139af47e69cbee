"""Reads Prometheus text exposition on stdin with the Prometheus project's own Python client parser
and prints its metric families as JSON; exits non-zero on any line the parser refuses."""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

families = []
for family in text_string_to_metric_families(sys.stdin.read()):
    families.append(
        {
            "name": family.name,
            "type": family.type,
            "help": family.documentation,
            "samples": [
                {"name": s.name, "labels": s.labels, "value": repr(s.value)} for s in family.samples
            ],
        }
    )
json.dump(families, sys.stdout)
