#!/bin/sh
curl -s https://api.example.com/items | jq '.items[]'
