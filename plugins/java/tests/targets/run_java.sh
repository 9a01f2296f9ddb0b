#!/bin/sh
# Starts the JVM the way build tools do: from a script, as a child.
java "$@"
echo "script done"
