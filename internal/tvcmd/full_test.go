package tvcmd_test

import (
	"github.com/thalix/tv/gitbackend/nettransport"
	"github.com/thalix/tv/internal/tvcmd"
	"github.com/thalix/tv/internal/tvcmd/mcpcmd"
)

func init() {
	tvcmd.SetTestFull(tvcmd.Extensions{MCP: mcpcmd.Command, Transport: nettransport.New()})
}
