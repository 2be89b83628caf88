package cloudinit

import (
	yaml "go.yaml.in/yaml/v3"
)

// ntp decodes the ntp module. A null value enables NTP with the default pools, as in
// cloud-init.
func (d *decoder) ntp(n *yaml.Node, cfg *Config) error {
	fields, err := d.mapping(n, "ntp")
	if err != nil {
		return err
	}
	ntp := NTP{Enabled: true, Client: "auto"}
	for _, f := range fields {
		p := join("ntp", f.key)
		switch f.key {
		case "enabled":
			ntp.Enabled, err = d.boolean(f.value, p, true)
		case "ntp_client":
			var s string
			var ok bool
			if s, ok, err = d.str(f.value, p); ok {
				ntp.Client = s
			}
		case "servers":
			ntp.Servers, err = d.strings(f.value, p, false)
		case "pools":
			ntp.Pools, err = d.strings(f.value, p, false)
		default:
			err = d.unsupported(p, "field not supported")
		}
		if err != nil {
			return err
		}
	}
	if err := d.check(validNTP(ntp)); err != nil {
		return err
	}
	cfg.NTP = &ntp
	return nil
}
