#!/bin/sh
r​m -rf ./build
