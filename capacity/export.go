package capacity

import (
	"fmt"
	"io"
	"strconv"

	"github.com/ckpt-hpc/ckpt/trace"
)

// InstanceOf draws the instance that RunSweepItem simulates for (pt, rep)
// with base seed base: the same seed derivation and generator, so that an
// exported instance is exactly the one `ckpt capacity simulate` measured.
func InstanceOf(pt SweepPoint, base uint64, rep int) (*Instance, error) {
	return pt.instance(base, rep)
}

// SWFParams are the generator parameters of pt, for the SWF header.
func SWFParams(pt SweepPoint) [][2]string {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	p := pt.Params
	out := [][2]string{{"workload", pt.Workload.Name}, {"sections", strconv.Itoa(p.Sections)}, {"avgT", g(p.AvgT)},
		{"pmax", strconv.Itoa(p.PMax)}, {"pmin", g(p.PMinFrac)}, {"delta", g(p.Delta)}, {"load", g(p.Load)},
		{"cmin", g(p.CLo)}, {"cmax", g(p.CHi)}}
	if pt.Release != "" {
		out = append(out, [2]string{"finite", string(pt.Release)})
	}
	return out
}

// WriteInstanceSWF writes the jobs of in as SWF v2.2 (see SWFFromJobs; C
// and R have no SWF field) under a header naming the generator, the
// parameters of pt, the base seed and the replicate rep (InstanceOf(pt,
// seed, rep) draws in again).
func WriteInstanceSWF(w io.Writer, in *Instance, pt SweepPoint, seed uint64, rep int) error {
	params := append(SWFParams(pt), [2]string{"instance", strconv.Itoa(rep)})
	h := trace.GeneratedSWFHeader("ckpt capacity", seed, params, len(in.Jobs), in.PMax)
	return trace.WriteSWF(w, h, SWFFromJobs(in.Jobs))
}

// WritePlatformXML writes a SimGrid platform for Batsim with n compute
// hosts named h0..h{n−1} (resources 0..n−1, in the order of the events)
// and a master host, in the layout of Batsim's reference cluster
// platforms.
func WritePlatformXML(w io.Writer, n int) error {
	_, err := fmt.Fprintf(w, `<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
<zone id="AS0" routing="Full">
    <cluster id="compute" prefix="h" suffix="" radical="0-%d" speed="1Gf" bw="125MBps" lat="50us" bb_bw="2.25GBps" bb_lat="500us"/>
    <cluster id="master" prefix="master_host" suffix="" radical="0-0" speed="1Gf" bw="125MBps" lat="50us" bb_bw="2.25GBps" bb_lat="500us">
        <prop id="role" value="master"/>
    </cluster>
    <link id="backbone" bandwidth="1.25GBps" latency="500us"/>
    <zoneRoute src="compute" dst="master" gw_src="hcompute_router" gw_dst="master_hostmaster_router">
        <link_ctn id="backbone"/>
    </zoneRoute>
</zone>
</platform>
`, n-1)
	return err
}
