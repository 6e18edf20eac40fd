package approvals

import "github.com/codewhale-ls/codewhale-ls/gate/secrets"

// Masked is r with every text that may quote a call masked again
// (gate/secrets), input included, for those who read the log
// (approvals/receiptlog): a line written before the log masked secrets,
// or by hand, shows none either. Masking is idempotent, so a receipt this
// release wrote reads as written.
func (r Receipt) Masked() Receipt {
	r = r.masked()
	if len(r.Input) > 0 {
		input := make([]ReceiptInput, len(r.Input))
		for i, field := range r.Input {
			field.Text, _ = secrets.Mask(field.Text)
			input[i] = field
		}
		r.Input = input
	}
	return r
}
