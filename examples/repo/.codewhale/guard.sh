#!/bin/sh
# Denies shell calls that pipe a download into a shell. Codewhale passes the
# call's arguments as JSON in DEEPSEEK_TOOL_ARGS.
case "$DEEPSEEK_TOOL_ARGS" in
  *"| sh"*|*"|sh"*|*"| bash"*|*"|bash"*)
    echo '{"decision":"deny","reason":"piping a download into a shell is not allowed in this repository"}'
    ;;
esac
exit 0
