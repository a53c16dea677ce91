package accounts

import (
	"errors"
	"strings"
	"testing"
)

func TestPasswordHashFormatAndCheck(t *testing.T) {
	t.Parallel()
	h := HashPassword("correct horse", DefaultPasswordParams)
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Count(h, "$") != 5 {
		t.Fatalf("hash %q is not a PHC argon2id string with the default costs", h)
	}
	if h2 := HashPassword("correct horse", DefaultPasswordParams); h2 == h {
		t.Fatal("two hashes of one password must differ (salt)")
	}
	if ok, err := CheckPassword(h, "correct horse"); !ok || err != nil {
		t.Fatalf("right password: %v %v", ok, err)
	}
	if ok, err := CheckPassword(h, "correct horsE"); ok || err != nil {
		t.Fatalf("wrong password: %v %v", ok, err)
	}
	// A hash made with other costs is checked with its own.
	cheap := HashPassword("pw", PasswordParams{Memory: 64, Time: 1, Threads: 2, SaltLen: 8, KeyLen: 16})
	if ok, err := CheckPassword(cheap, "pw"); !ok || err != nil {
		t.Fatalf("hash with its own costs: %v %v", ok, err)
	}
}

func TestMalformedHashesAreErrorsNotMismatches(t *testing.T) {
	t.Parallel()
	good := HashPassword("pw", PasswordParams{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	parts := strings.Split(good, "$")
	bad := []string{
		"", "plain", "$argon2i$" + strings.Join(parts[2:], "$"),
		"$argon2id$v=16$" + strings.Join(parts[3:], "$"),
		"$argon2id$v=19$m=4294967295,t=1,p=1$" + parts[4] + "$" + parts[5], // 4 TiB of memory
		"$argon2id$v=19$m=64,t=0,p=1$" + parts[4] + "$" + parts[5],
		"$argon2id$v=19$m=64,t=1,p=1$!!$" + parts[5],
		"$argon2id$v=19$m=64,t=1,p=1$" + parts[4] + "$c2hvcnQ",
	}
	for _, h := range bad {
		if ok, err := CheckPassword(h, "pw"); ok || !errors.Is(err, errMalformedHash) {
			t.Errorf("CheckPassword(%q) = %v, %v; want errMalformedHash", h, ok, err)
		}
	}
}

func TestGeneratedPasswordsAreLongAndDistinct(t *testing.T) {
	t.Parallel()
	a, b := GeneratePassword(), GeneratePassword()
	if len(a) < 20 || a == b || validatePassword(a) != nil {
		t.Fatalf("generated %q, %q", a, b)
	}
	if !errors.Is(validatePassword("short"), ErrInvalid) || !errors.Is(validatePassword(strings.Repeat("x", 2000)), ErrInvalid) {
		t.Fatal("length rules")
	}
	if validatePassword("ççççççç") == nil || validatePassword("çççççççç") != nil {
		t.Fatal("the minimum counts characters, not bytes")
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Demo Company":            "demo-company",
		"  Açúcar & Cia. ":        "acucar-cia",
		"!!!":                     "workspace",
		strings.Repeat("ab ", 40): strings.TrimRight(strings.Repeat("ab-", 20), "-"),
	} {
		if got := slug(in); got != want || len(got) > maxEmailPrefix || !emailPrefixRE.MatchString(got) {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSlugBounded: the exported Slug cuts at its own bound without leaving
// a trailing hyphen, and gives "" (not a default) when nothing is left.
func TestSlugBounded(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"Notas Fiscais de Serviço", 40, "notas-fiscais-de-servico"},
		{"Fornecedores do Nordeste", 16, "fornecedores-do"},
		{"???", 40, ""},
	} {
		if got := Slug(c.in, c.max); got != c.want {
			t.Errorf("Slug(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
