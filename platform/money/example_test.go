package money_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kobana/kobana-mcp/platform/money"
)

// A wire amount with more than two decimals is rounded half-up, from the
// decimal the client wrote.
func ExampleFromFloat() {
	for _, v := range []float64{10.005, 10.004, 1.005} {
		c, err := money.FromFloat(v)
		fmt.Println(int64(c), err)
	}
	_, err := money.FromFloat(-3)
	fmt.Println(errors.Is(err, money.ErrNegative), err)
	// Output:
	// 1001 <nil>
	// 1000 <nil>
	// 101 <nil>
	// true amount must not be negative (got -3)
}

func ExampleFromNumber() {
	c, err := money.FromNumber(json.Number("1234.567"))
	fmt.Println(int64(c), err)
	// Output: 123457 <nil>
}

func ExampleCents_String() {
	fmt.Println(money.Cents(123456))
	fmt.Println(money.Cents(-100))
	fmt.Println(money.Cents(123456).Number(), money.Cents(123456).Float64(), money.Cents(123456).Decimal())
	// Output:
	// R$ 1.234,56
	// -R$ 1,00
	// 1.234,56 1234.56 1234.56
}

// A Cents field reads and writes BRL floats.
func ExampleCents_UnmarshalJSON() {
	var req struct {
		Amount money.Cents `json:"amount"`
	}
	err := json.Unmarshal([]byte(`{"amount": 99.995}`), &req)
	out, _ := json.Marshal(req)
	fmt.Println(int64(req.Amount), err, string(out))
	// Output: 10000 <nil> {"amount":100}
}
