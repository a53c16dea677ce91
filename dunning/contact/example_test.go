package contact_test

import (
	"fmt"

	"github.com/kobana/kobana-mcp/dunning/contact"
)

func ExampleParsePhone() {
	for _, s := range []string{"(11) 98765-4321", "+55 11 3456-7890", "(11) 8765-4321", "+1 415 555 2671"} {
		p, err := contact.ParsePhone(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(p.E164, p.Kind)
	}
	// Output:
	// +5511987654321 mobile
	// +551134567890 fixed_line
	// not a valid Brazilian phone number (got "(11) 8765-4321"): a mobile number has nine digits after the area code, starting with 9
	// phone number must be Brazilian (+55) (got +1, US)
}

func ExampleParseEmail() {
	fmt.Println(contact.ParseEmail("Maria.Silva@Exemplo.COM.br"))
	fmt.Println(contact.ParseEmail("Maria <maria@exemplo.com.br>"))
	// Output:
	// Maria.Silva@exemplo.com.br <nil>
	//  not a valid e-mail address: give the address alone, without a name, brackets, quotes or comments (got "Maria <maria@exemplo.com.br>")
}
