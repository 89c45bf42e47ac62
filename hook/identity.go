package hook

import (
	"fmt"
	"regexp"
)

// IdentityVars are the environment variables, in order, that git servers
// set to the authenticated pusher: git http-backend (REMOTE_USER),
// gitolite (GL_USER), Gitea and Forgejo (GITEA_PUSHER_NAME) and GitLab
// (GL_USERNAME). The pushed commits never say who pushes.
var IdentityVars = []string{"REMOTE_USER", "GL_USER", "GITEA_PUSHER_NAME", "GL_USERNAME"}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// CheckUserEnv checks an installer-configured identity variable name.
func CheckUserEnv(name string) error {
	if name != "" && !envName.MatchString(name) {
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
