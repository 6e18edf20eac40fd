package shellsafety

// pipeline is the stages of one `a | b | c`, each a simple command's words
// with redirections (operator and target) removed.
type pipeline [][]word

// pipelines groups a command line into pipelines. Every operator other than
// a pipe ends one (;, &&, ||, &, newline, parentheses), so a subshell's
// commands are seen like any others. Empty stages are dropped.
func pipelines(lx lexed) []pipeline {
	var (
		all   []pipeline
		cur   pipeline
		stage []word
	)
	endStage := func() {
		if len(stage) > 0 {
			cur = append(cur, stage)
		}
		stage = nil
	}
	endPipeline := func() {
		endStage()
		if len(cur) > 0 {
			all = append(all, cur)
		}
		cur = nil
	}
	skipTarget := false
	for _, t := range lx.tokens {
		switch {
		case t.op == "":
			if skipTarget {
				skipTarget = false
				continue
			}
			stage = append(stage, t.word)
		case t.op == opRedirectOut || t.op == opRedirectIn:
			skipTarget = true
		case t.op == opPipe || t.op == opPipeAll:
			skipTarget = false
			endStage()
		default:
			skipTarget = false
			endPipeline()
		}
	}
	endPipeline()
	return all
}

// texts returns the words' values.
func texts(words []word) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w.text
	}
	return out
}

// splitWords tokenises a nested script (an `sh -c` payload, an `env -S`
// string) into the values of its words, ignoring operators.
func splitWords(s string) []string {
	var out []string
	for _, t := range lex(s).tokens {
		if t.op == "" {
			out = append(out, t.word.text)
		}
	}
	return out
}
