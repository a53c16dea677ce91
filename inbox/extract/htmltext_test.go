package extract

import "testing"

func TestHTMLToText(t *testing.T) {
	t.Parallel()
	in := `<!DOCTYPE html><html><head><title>Fatura</title><style>p{color:red}</style></head>
<body><script>var x = "R$ 999,99";</script>
<p>Ol&aacute;, <b>Maria</b>!</p><div>Valor:&nbsp;R$&nbsp;1.234,56</div>
<table><tr><td>Vencimento</td><td>10/03/2026</td></tr><tr><td>Linha</td><td>23793.38128<br>60000.000003</td></tr></table>
<ul><li>um</li><li>dois &amp; tr&ecirc;s</li></ul><pre>  a
  b</pre><!-- comentário escondido --><p>fim</p></body></html>`
	want := "Olá, Maria!\nValor: R$ 1.234,56\nVencimento 10/03/2026\nLinha 23793.38128\n60000.000003\num\ndois & três\n  a\n  b\nfim"
	if got := HTMLToText(in); got != want {
		t.Errorf("got:\n%q\nwant:\n%q", got, want)
	}
}
