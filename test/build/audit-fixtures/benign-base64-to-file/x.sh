#!/bin/sh
echo "$IMAGE" | base64 -d > out.png
