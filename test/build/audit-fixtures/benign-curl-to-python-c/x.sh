#!/bin/sh
curl -s http://localhost:4747/pending | python3 -c 'import json,sys; print(json.load(sys.stdin))'
