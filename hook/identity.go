package hook

import "fmt"

// IdentityVars are the environment variables, in order, that git servers
// set to the authenticated pusher: git http-backend (REMOTE_USER),
// gitolite (GL_USER), Gitea and Forgejo (GITEA_PUSHER_NAME) and GitLab
// (GL_USERNAME). The pushed commits never say who pushes.
var IdentityVars = []string{"REMOTE_USER", "GL_USER", "GITEA_PUSHER_NAME", "GL_USERNAME"}

// CheckUserEnv checks an installer-configured identity variable name.
func CheckUserEnv(name string) error {
	if name != "" && !isEnvName(name) {
		return fmt.Errorf("%w: --user-env %q is not an environment variable name (letters, digits, '_')", ErrUsage, name)
	}
	return nil
}

// pusher returns the pusher's name and the variable it came from: the
// installer-configured variable userEnv first, then IdentityVars. "" when
// none is set.
func pusher(getenv func(string) string, userEnv string) (user, from string) {
	vars := IdentityVars
	if userEnv != "" {
		vars = append([]string{userEnv}, vars...)
	}
	for _, v := range vars {
		if u := getenv(v); u != "" {
			return u, v
		}
	}
	return "", ""
}

// isEnvName reports whether name is a portable environment variable name:
// a letter or '_', then letters, digits and '_'. (A loop, not a regexp:
// a package-level regexp is compiled at every tv start.)
func isEnvName(name string) bool {
	for i, c := range []byte(name) {
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return name != ""
}
